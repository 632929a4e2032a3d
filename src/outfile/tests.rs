//! The output rules, each on a temporary directory (never the real `/dev`).

use super::*;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tracetui-outfile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn put(path: &Path, text: &str) -> io::Result<()> {
    write_atomic(path, |w| w.write_all(text.as_bytes()))
}

fn leftovers(d: &Path) -> Vec<String> {
    std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(TMP_SUFFIX))
        .collect()
}

#[test]
fn a_new_file_and_a_replaced_one_leave_no_temporary_behind() {
    let d = dir("plain");
    let p = d.join("out.csv");
    put(&p, "one").unwrap();
    put(&p, "two").unwrap();
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
    assert!(leftovers(&d).is_empty());
}

#[test]
fn a_failed_fill_leaves_the_old_file_whole_and_no_temporary() {
    let d = dir("failed");
    let p = d.join("out.csv");
    put(&p, "old").unwrap();
    let r = write_atomic(&p, |w| {
        w.write_all(b"half")?;
        Err(io::Error::other("stopped"))
    });
    assert!(r.is_err());
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
    assert!(leftovers(&d).is_empty());
}

#[cfg(unix)]
#[test]
fn a_symlink_stays_a_link_and_its_target_is_written() {
    let d = dir("link");
    std::fs::create_dir(d.join("real")).unwrap();
    let target = d.join("real/data.csv");
    put(&target, "old").unwrap();
    let link = d.join("link.csv");
    std::os::unix::fs::symlink("real/data.csv", &link).unwrap();
    put(&link, "new").unwrap();
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
    assert!(leftovers(&d).is_empty() && leftovers(&d.join("real")).is_empty());
    // A dangling link: its target is made.
    let dangling = d.join("dangling.csv");
    std::os::unix::fs::symlink("real/new.csv", &dangling).unwrap();
    put(&dangling, "made").unwrap();
    assert!(std::fs::symlink_metadata(&dangling)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read_to_string(d.join("real/new.csv")).unwrap(),
        "made"
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_is_written_in_place_and_stays_a_fifo() {
    use std::os::unix::fs::FileTypeExt;
    let d = dir("fifo");
    let fifo = d.join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    put(&fifo, "through the pipe").unwrap();
    assert_eq!(reader.join().unwrap(), "through the pipe");
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    assert!(leftovers(&d).is_empty());
}

#[cfg(unix)]
#[test]
fn dev_fd_to_a_file_opened_for_appending_is_appended_to() {
    use std::os::fd::AsRawFd;
    let d = dir("append");
    let log = d.join("log.csv");
    std::fs::write(&log, "kept\n").unwrap();
    let f = OpenOptions::new().append(true).open(&log).unwrap();
    let via = PathBuf::from(format!("/dev/fd/{}", f.as_raw_fd()));
    put(&via, "added\n").unwrap();
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "kept\nadded\n");
}

#[test]
fn dev_proc_and_dash_are_written_where_they_are() {
    assert_eq!(dest(Path::new("-")).unwrap(), Dest::Stdout);
    for p in ["/dev/null", "/dev/stdout", "/dev/fd/2", "/proc/self/fd/1"] {
        assert_eq!(
            dest(Path::new(p)).unwrap(),
            Dest::InPlace(PathBuf::from(p)),
            "{p}"
        );
    }
    // /dev/null takes the bytes and stays a device.
    put(Path::new("/dev/null"), "gone").unwrap();
    assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
    // A new file in /dev/shm (a tmpfs for files) is made like any other
    // (it was opened for appending, and failed: no such file). Only
    // asked here: nothing is written under /dev.
    if Path::new("/dev/shm").is_dir() {
        let p = PathBuf::from(format!("/dev/shm/tracetui-{}-none", std::process::id()));
        assert_eq!(dest(&p).unwrap(), Dest::Replace(p.clone()));
    }
}

#[cfg(unix)]
#[test]
fn a_hard_linked_file_keeps_its_links_and_a_replaced_one_its_mode() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let d = dir("links");
    let a = d.join("a.csv");
    put(&a, "old").unwrap();
    std::fs::hard_link(&a, d.join("b.csv")).unwrap();
    put(&a, "new").unwrap();
    assert_eq!(std::fs::read_to_string(d.join("b.csv")).unwrap(), "new");
    assert_eq!(std::fs::metadata(&a).unwrap().nlink(), 2);
    let private = d.join("private.csv");
    put(&private, "x").unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
    put(&private, "y").unwrap();
    assert_eq!(std::fs::metadata(&private).unwrap().mode() & 0o777, 0o600);
    assert_eq!(std::fs::read_to_string(&private).unwrap(), "y");
}

#[cfg(unix)]
#[test]
fn a_planted_symlink_at_a_temporary_name_is_never_followed() {
    // The temporary is made with O_EXCL under an unguessable name: one
    // planted at the old predictable name (and any guess) is left alone.
    let d = dir("planted");
    let victim = d.join("victim");
    std::fs::write(&victim, "precious").unwrap();
    let p = d.join("out.csv");
    std::os::unix::fs::symlink(
        &victim,
        d.join(format!(".out.csv.tmp-{}", std::process::id())),
    )
    .unwrap();
    put(&p, "result").unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "result");
    let (a, b) = (unguessable(0), unguessable(0));
    assert_ne!(a, b, "two temporary names alike");
}

#[test]
fn a_directory_is_refused_with_its_reason() {
    let d = dir("isdir");
    let e = put(&d, "x").unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::IsADirectory);
}

#[test]
fn an_output_that_is_an_input_is_refused() {
    let d = dir("inputs");
    let trace = d.join("t.csv");
    std::fs::write(&trace, "id\n").unwrap();
    let e = check(&[&trace], &[("--jobs-out", &trace)]).unwrap_err();
    assert!(e.to_string().contains("is an input"), "{e}");
    // Through another spelling of the path.
    let other = d.join(".").join("t.csv");
    assert!(check(&[&trace], &[("--plot", &other)]).is_err());
    // A table inside an input directory.
    let e = check(&[&d], &[("--plot", &trace)]).unwrap_err();
    assert!(e.to_string().contains("--plot"), "{e}");
    // A new file beside the input is fine.
    assert!(check(&[&trace], &[("--plot", &d.join("fig.svg"))]).is_ok());
}

#[cfg(unix)]
#[test]
fn an_output_linked_to_an_input_is_refused() {
    let d = dir("linked-input");
    let trace = d.join("t.csv");
    std::fs::write(&trace, "id\n").unwrap();
    let link = d.join("out.csv");
    std::os::unix::fs::symlink(&trace, &link).unwrap();
    assert!(check(&[&trace], &[("--jobs-out", &link)]).is_err());
    let dangling = d.join("later.csv");
    std::os::unix::fs::symlink("t.csv", &dangling).unwrap();
    assert!(check(&[&trace], &[("--jobs-out", &dangling)]).is_err());
}

#[test]
fn one_path_for_two_outputs_is_refused() {
    let d = dir("twice");
    let p = d.join("out.csv");
    let e = check(&[], &[("--jobs-out", &p), ("--timeline-out", &p)]).unwrap_err();
    assert!(
        e.to_string().contains("--jobs-out and --timeline-out"),
        "{e}"
    );
    let same = d.join(".").join("out.csv");
    assert!(check(&[], &[("--jobs-out", &p), ("--plot", &same)]).is_err());
    let dash = Path::new("-");
    assert!(check(&[], &[("--jobs-out", dash), ("--plot", dash)]).is_err());
    assert!(check(&[], &[("--jobs-out", &p), ("--plot", &d.join("fig.svg"))]).is_ok());
}

/// Issue 63: a temporary left by a killed writer (untouched for longer
/// than `STALE`) is removed by the next write into its directory; a fresh
/// one (a live writer's) and other hidden files are left alone.
#[test]
fn a_killed_writers_temporary_is_removed_by_the_next_write_there() {
    let d = dir("stale");
    let old = d.join(format!(".jobs.csv.00000000deadbeef{TMP_SUFFIX}"));
    let fresh = d.join(format!(".r1.json.0000000000c0ffee{TMP_SUFFIX}"));
    let other = d.join(".keep");
    for p in [&old, &fresh, &other] {
        std::fs::write(p, "x").unwrap();
    }
    let long_ago = std::time::SystemTime::now() - stale::STALE - std::time::Duration::from_secs(60);
    for p in [&old, &other] {
        let f = std::fs::File::options().write(true).open(p).unwrap();
        f.set_modified(long_ago).unwrap();
    }
    put(&d.join("out.csv"), "one").unwrap();
    assert!(!old.exists(), "the stale temporary stayed");
    assert!(fresh.exists() && other.exists());
    assert_eq!(stale::clean(&d, std::time::SystemTime::now()), 0);
}
