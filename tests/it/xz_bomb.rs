//! A decompression bomb in Zeus's `.xz` slot costs time, not memory: the
//! run's own peak, read from its `/proc` status while it runs.

use crate::common;

use common::cli::{stderr, tracetui_peak_kib};
use std::io::Write;

/// 384 MiB of one byte compress to about 60 KB. The old decoder held each
/// whole LZMA2 block before passing a byte on, so loading this peaked at
/// 794 MB (release build); the streaming decoder stops with the loader, which refuses the
/// first line past 1 MiB.
#[test]
fn a_decompression_bomb_costs_no_memory() {
    let d = common::zeus_without_groups("xz-bomb");
    // Written as it is compressed: this process, whose memory a child
    // starts from, never holds the bomb.
    let path = d.join("alibaba_groups.csv.xz");
    let file = std::fs::File::create(&path).unwrap();
    let opts = lzma_rust2::XzOptions::with_preset(1);
    let mut w = lzma_rust2::XzWriter::new(file, opts).unwrap();
    w.write_all(b"group,start_time,end_time,dataset,runtime_ratio\n")
        .unwrap();
    let a_mib = vec![b'a'; 1 << 20];
    for _ in 0..384 {
        w.write_all(&a_mib).unwrap();
    }
    w.finish().unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size < 1 << 20, "{size} bytes");

    let (o, peak_kib) = tracetui_peak_kib(&["stats", "zeus", d.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("alibaba_groups.csv.xz"), "{err}");
    assert!(err.contains("alibaba_groups.csv.xz:2:"), "{err}");
    let peak_mib = peak_kib / 1024;
    assert!(
        peak_mib < 200,
        "loading the bomb peaked at {peak_mib} MiB; the decoder must stream"
    );
}
