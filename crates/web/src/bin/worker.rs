//! The simulation worker's entry point (built by Trunk as a Web Worker).
fn main() {
    schedlab_web::worker::register();
}
