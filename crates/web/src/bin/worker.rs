//! The simulation worker's entry point (built by Trunk as a Web Worker).
use gloo::worker::Registrable;

fn main() {
    schedlab_web::worker::SimWorker::registrar()
        .encoding::<schedlab_web::codec::Cbor>()
        .register();
}
