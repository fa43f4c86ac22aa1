// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// The oracle's Rust program (tests/cli/oracle.sh): generics, closures and a
// trait object, the std runtime's frames (both manglings: legacy and v0).
//   rust [ROUNDS]
// (no std::hint::black_box: Debian 12's rustc, 1.63, predates it)
fn opaque(x: u64) -> u64 {
    let v = x;
    unsafe { std::ptr::read_volatile(&v) }
}

trait Shape {
    fn area(&self, i: u64) -> u64;
}
struct Square;
struct Tri;
impl Shape for Square {
    fn area(&self, i: u64) -> u64 { i.wrapping_mul(i) + 1 }
}
impl Shape for Tri {
    fn area(&self, i: u64) -> u64 { i.wrapping_mul(i + 1) / 2 + 3 }
}

#[inline(never)]
fn sort_keys<T: Ord + Copy + From<u32>>(n: u32) -> T {
    let mut v: Vec<T> = (0..n).map(|i| T::from(i.wrapping_mul(2654435761) % 100003)).collect();
    v.sort_by(|a, b| a.cmp(b));
    v[(n / 2) as usize]
}

#[inline(never)]
fn shapes(s: &[Box<dyn Shape>], n: u64) -> u64 {
    (0..n).map(|i| s[(i % s.len() as u64) as usize].area(opaque(i))).fold(0, u64::wrapping_add)
}

fn main() {
    let rounds: u32 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let s: Vec<Box<dyn Shape>> = vec![Box::new(Square), Box::new(Tri)];
    let mut sink = 0u64;
    for _ in 0..rounds {
        sink = sink.wrapping_add(sort_keys::<u64>(60000));
        sink = sink.wrapping_add(shapes(&s, 2000000));
    }
    opaque(sink);
}
