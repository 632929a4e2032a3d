fn main() {
    std::process::exit(tracetui::run());
}
