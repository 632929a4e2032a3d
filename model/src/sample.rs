//! Sample traces compiled into the binary, so a first run needs no data.

use crate::{Format, InputError, LoadOptions, LoadReport, Trace};

/// The committed sample ITP trace (`sample-traces/itp/sample.csv`).
pub(crate) const ITP_CSV: &str = include_str!("../../sample-traces/itp/sample.csv");
/// The name messages give the embedded sample.
pub(crate) const ITP_NAME: &str = "sample-traces/itp/sample.csv (embedded)";
/// The cluster it was generated for (`gen itp … --gpus 128`); read from the
/// file alone an ITP trace is sized for its load instead.
pub const ITP_GPUS: u32 = 128;

/// The embedded ITP sample, loaded on the `ITP_GPUS` GPUs it was generated for.
pub fn itp() -> Result<(Trace, LoadReport), InputError> {
    let itp = Format::find("itp").expect("the ITP format is registered");
    itp.load_text(
        ITP_CSV.as_bytes(),
        ITP_NAME,
        &LoadOptions {
            gpus: Some(ITP_GPUS),
            ..LoadOptions::default()
        },
    )
}
