//! The page's entry point.
fn main() {
    yew::Renderer::<schedlab_web::components::app::App>::new().render();
}
