// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The oracle's JIT program (tests/cli/oracle.sh), run as node --perf-basic-prof:
// V8 writes /tmp/perf-PID.map for the code it compiles.  jit.js [ROUNDS]
'use strict';
function mix(v) { v ^= v >>> 17; v = Math.imul(v, 0xed5ad4bb); return v ^ (v >>> 11); }
function work(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + mix(i)) | 0; return s; }
function sortSome(n) { const a = []; for (let i = 0; i < n; i++) a.push(mix(i)); a.sort((x, y) => x - y); return a[n >> 1]; }
const rounds = Number(process.argv[2] || 20);
let sink = 0;
for (let r = 0; r < rounds; r++) sink += work(2000000) + sortSome(20000);
if (sink === 42) console.log(sink);
