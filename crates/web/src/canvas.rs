//! The canvas drawing backend of the page's charts: plotters-canvas's `CanvasBackend`, except
//! that filled rectangles set the context's fill colour only when it changes.
//!
//! `CanvasBackend` formats the colour as an `rgba(…)` string and hands it to the context for
//! every shape. A timeline frame is thousands of small filled rectangles, mostly of a few
//! colours, and that string traffic between wasm and JavaScript cost as much as laying the
//! frame out. Everything else (lines, text, paths) goes to `CanvasBackend` unchanged, which may
//! set the fill colour itself, so after any of those the next rectangle sets it again.

use std::cell::Cell;

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// A `CanvasBackend` that keeps the last fill colour it set.
pub struct Canvas {
    inner: CanvasBackend,
    ctx: CanvasRenderingContext2d,
    /// The fill colour the context holds (red, green, blue, alpha's bits), when this backend
    /// set it last.
    fill: Cell<Option<(u8, u8, u8, u64)>>,
}

impl Canvas {
    /// The backend for `canvas`, or `None` if it has no 2D context.
    pub fn new(canvas: HtmlCanvasElement) -> Option<Canvas> {
        let ctx = canvas
            .get_context("2d")
            .ok()??
            .dyn_into::<CanvasRenderingContext2d>()
            .ok()?;
        let inner = CanvasBackend::with_canvas_object(canvas)?;
        Some(Canvas {
            inner,
            ctx,
            fill: Cell::new(None),
        })
    }

    /// The whole canvas as a plotters drawing area.
    pub fn area(self) -> DrawingArea<Canvas, Shift> {
        self.into_drawing_area()
    }

    /// Forgets the fill colour: `CanvasBackend` may have set another.
    fn passed_on(&self) {
        self.fill.set(None);
    }
}

type Result<T = ()> =
    std::result::Result<T, DrawingErrorKind<<CanvasBackend as DrawingBackend>::ErrorType>>;

impl DrawingBackend for Canvas {
    type ErrorType = <CanvasBackend as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result {
        self.inner.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result {
        self.passed_on();
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result {
        self.passed_on();
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result {
        let color = style.color();
        if !fill || color.alpha == 0.0 {
            self.passed_on();
            return self.inner.draw_rect(upper_left, bottom_right, style, fill);
        }
        // As CanvasBackend draws it, with the colour set only when it is not already.
        let (r, g, b) = color.rgb;
        let key = (r, g, b, color.alpha.to_bits());
        if self.fill.get() != Some(key) {
            self.ctx
                .set_fill_style_str(&format!("rgba({r}, {g}, {b}, {})", color.alpha));
            self.fill.set(Some(key));
        }
        self.ctx.fill_rect(
            f64::from(upper_left.0),
            f64::from(upper_left.1),
            f64::from(bottom_right.0 - upper_left.0),
            f64::from(bottom_right.1 - upper_left.1),
        );
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result {
        self.passed_on();
        self.inner.draw_path(path, style)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result {
        self.passed_on();
        self.inner.fill_polygon(vert, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result {
        self.passed_on();
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        pos: BackendCoord,
    ) -> Result {
        self.passed_on();
        self.inner.draw_text(text, style, pos)
    }

    fn estimate_text_size<TStyle: BackendTextStyle>(
        &self,
        text: &str,
        style: &TStyle,
    ) -> Result<(u32, u32)> {
        self.inner.estimate_text_size(text, style)
    }
}
