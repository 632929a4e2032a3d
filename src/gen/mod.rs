//! Synthetic traces in each format's native schema, deterministic for a seed.

pub mod acme;
pub(crate) mod dist;
pub mod itp;
pub mod pai;
pub mod philly;

/// Packs `files` into the gzipped tar `out`, each as its member name, as
/// the releases ship them. Fixed headers (no mtime, owner or mode from this
/// machine) keep the archive the same bytes for the same files.
pub(crate) fn pack(
    files: &[(&std::path::Path, &str)],
    out: &std::path::Path,
) -> std::io::Result<()> {
    crate::outfile::write_atomic(out, |w| {
        let gz = flate2::write::GzEncoder::new(w, flate2::Compression::fast());
        let mut tar = tar::Builder::new(gz);
        for (path, member) in files {
            let f = std::fs::File::open(path)?;
            let mut h = tar::Header::new_gnu();
            h.set_size(f.metadata()?.len());
            h.set_mode(0o644);
            h.set_mtime(0);
            h.set_uid(0);
            h.set_gid(0);
            h.set_cksum();
            tar.append_data(&mut h, member, f)?;
        }
        tar.into_inner()?.finish()?;
        Ok(())
    })
}
