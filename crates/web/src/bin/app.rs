//! The page's entry point.
fn main() {
    schedlab_web::browser::install_panic_hook();
    yew::Renderer::<schedlab_web::components::app::App>::new().render();
}
