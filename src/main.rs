fn main() {
    // A policy's keeper runs here and never returns (driver::keeper).
    tracetui_driver::keeper::run_if_asked();
    tracetui_driver::keeper::enable();
    std::process::exit(tracetui::run());
}
