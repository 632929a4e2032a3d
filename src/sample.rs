//! Sample traces compiled into the binary, so a first run needs no data.

use crate::trace::{itp, InputError, LoadOptions, LoadReport, Trace};

/// The committed sample ITP trace (`sample-traces/itp/sample.csv`).
pub const ITP_CSV: &str = include_str!("../sample-traces/itp/sample.csv");
pub const ITP_NAME: &str = "sample-traces/itp/sample.csv (embedded)";

pub fn itp() -> Result<(Trace, LoadReport), InputError> {
    itp::load_from(
        ITP_CSV.as_bytes(),
        ITP_NAME,
        &LoadOptions {
            gpus: Some(128),
            ..LoadOptions::default()
        },
    )
}
