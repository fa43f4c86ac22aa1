// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
//! perfdata-decode-rust FILE [REPS [MAX_RECORDS]]: open a perf.data file with linux-perf-data,
//! iterate every record, parse each kernel record and touch the sample
//! fields (time, pid, tid, cpu, ip, call chain entries), like
//! bench/perfdata_decode.c does with perfring. Prints one line per pass:
//!   perfdata_decode_pass linux-perf-data records N samples N seconds S sum X
use linux_perf_data::linux_perf_event_reader::EventRecord;
use linux_perf_data::{PerfFileReader, PerfFileRecord};
use std::time::Instant;

fn pass(path: &str, max: u64) -> Result<(u64, u64, u64), linux_perf_data::Error> {
    let file = std::fs::File::open(path)?;
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    let PerfFileReader { mut perf_file, mut record_iter } = PerfFileReader::parse_file(reader)?;
    let (mut records, mut samples, mut sum) = (0u64, 0u64, 0u64);

    while records < max {
        let record = match record_iter.next_record(&mut perf_file)? {
            Some(record) => record,
            None => break,
        };
        records += 1;
        if let PerfFileRecord::EventRecord { record, .. } = record {
            if let EventRecord::Sample(s) = record.parse()? {
                samples += 1;
                sum = sum
                    .wrapping_add(s.timestamp.unwrap_or(0))
                    .wrapping_add(s.pid.unwrap_or(0) as u32 as u64)
                    .wrapping_add(s.tid.unwrap_or(0) as u32 as u64)
                    .wrapping_add(s.cpu.unwrap_or(0) as u64)
                    .wrapping_add(s.ip.unwrap_or(0));
                if let Some(cc) = s.callchain {
                    for i in 0..cc.len() {
                        sum = sum.wrapping_add(cc.get(i).unwrap_or(0));
                    }
                }
            }
        }
    }
    Ok((records, samples, sum))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 {
        eprintln!("usage: {} FILE [REPS [MAX_RECORDS]]", args[0]);
        std::process::exit(2);
    }
    let reps: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let max: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(u64::MAX);
    for _ in 0..reps {
        let t0 = Instant::now();
        match pass(&args[1], max) {
            Ok((records, samples, sum)) => println!(
                "perfdata_decode_pass linux-perf-data records {} samples {} seconds {:.6} sum {:x}",
                records,
                samples,
                t0.elapsed().as_secs_f64(),
                sum
            ),
            Err(e) => {
                eprintln!("linux-perf-data: {}: {:?}", args[1], e);
                std::process::exit(1);
            }
        }
    }
}
