//! Trusted input through CDP `Input.dispatch*` on the top page's session; Chromium routes it into
//! out-of-process iframes itself. Each method reads like the user action it sends.

use chromiumoxide::cdp::browser_protocol::emulation::SetTouchEmulationEnabledParams;
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventPointerType,
    DispatchMouseEventType, DispatchTouchEventParams, DispatchTouchEventType, MouseButton, TouchPoint,
};
use serde_json::json;

use crate::host::{Host, HostError};

/// A key the harness can press: its DOM `key`, `code` and Windows virtual key code.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    pub key: &'static str,
    pub code: &'static str,
    pub vk: i64,
    /// The character the key types, if any.
    pub text: Option<&'static str>,
}

impl Key {
    pub const TAB: Key = Key { key: "Tab", code: "Tab", vk: 9, text: None };
    pub const ENTER: Key = Key { key: "Enter", code: "Enter", vk: 13, text: Some("\r") };
    pub const ESCAPE: Key = Key { key: "Escape", code: "Escape", vk: 27, text: None };
    pub const SPACE: Key = Key { key: " ", code: "Space", vk: 32, text: Some(" ") };
    pub const BACKSPACE: Key = Key { key: "Backspace", code: "Backspace", vk: 8, text: None };
    pub const ARROW_LEFT: Key = Key { key: "ArrowLeft", code: "ArrowLeft", vk: 37, text: None };
    pub const ARROW_UP: Key = Key { key: "ArrowUp", code: "ArrowUp", vk: 38, text: None };
    pub const ARROW_RIGHT: Key = Key { key: "ArrowRight", code: "ArrowRight", vk: 39, text: None };
    pub const ARROW_DOWN: Key = Key { key: "ArrowDown", code: "ArrowDown", vk: 40, text: None };
    pub const KEY_A: Key = Key { key: "a", code: "KeyA", vk: 65, text: Some("a") };

    /// The keys a scenario can name.
    pub const NAMED: [Key; 10] = [
        Key::TAB,
        Key::ENTER,
        Key::ESCAPE,
        Key::SPACE,
        Key::BACKSPACE,
        Key::ARROW_LEFT,
        Key::ARROW_UP,
        Key::ARROW_RIGHT,
        Key::ARROW_DOWN,
        Key::KEY_A,
    ];

    /// Looks a key up by its DOM `key` or `code` name (`Tab`, `Escape`, `KeyA`, `a` ...).
    pub fn named(name: &str) -> Option<Key> {
        Key::NAMED.into_iter().find(|k| k.key.eq_ignore_ascii_case(name) || k.code.eq_ignore_ascii_case(name))
    }

    /// The names [`Key::named`] knows, by `code`, for a message: `Tab, Enter, ..., KeyA`.
    pub fn names() -> String {
        Key::NAMED.iter().map(|k| k.code).collect::<Vec<_>>().join(", ")
    }
}

/// CDP's modifier bit for Shift (`Input.dispatchKeyEvent` `modifiers`).
pub const SHIFT: i64 = 8;

/// Mouse buttons held, as CDP's `buttons` bit field.
const LEFT_BUTTONS: i64 = 1;

impl Host {
    /// Moves the mouse to (x, y) in one step.
    pub async fn move_to(&self, x: f64, y: f64) -> Result<(), HostError> {
        self.move_to_in_steps(x, y, 1).await
    }

    /// Moves the mouse from where it is to (x, y) through `steps` evenly spaced trusted moves.
    pub async fn move_to_in_steps(&self, x: f64, y: f64, steps: u32) -> Result<(), HostError> {
        self.glide(x, y, steps, 0).await
    }

    async fn glide(&self, x: f64, y: f64, steps: u32, buttons: i64) -> Result<(), HostError> {
        let (x0, y0) = *self.mouse.lock().unwrap_or_else(|e| e.into_inner());
        let steps = steps.max(1);
        for i in 1..=steps {
            let t = f64::from(i) / f64::from(steps);
            let (px, py) = (x0 + (x - x0) * t, y0 + (y - y0) * t);
            let mut moved = DispatchMouseEventParams::new(DispatchMouseEventType::MouseMoved, px, py);
            moved.buttons = Some(buttons);
            moved.pointer_type = Some(DispatchMouseEventPointerType::Mouse);
            if buttons != 0 {
                moved.button = Some(MouseButton::Left);
            }
            self.page.execute(&moved).await?;
            *self.mouse.lock().unwrap_or_else(|e| e.into_inner()) = (px, py);
        }
        Ok(())
    }

    /// Moves a pen (CDP `pointerType: "pen"`, no buttons) to (x, y) in one step.
    pub async fn pen_move_to(&self, x: f64, y: f64) -> Result<(), HostError> {
        let mut moved = DispatchMouseEventParams::new(DispatchMouseEventType::MouseMoved, x, y);
        moved.buttons = Some(0);
        moved.pointer_type = Some(DispatchMouseEventPointerType::Pen);
        self.page.execute(&moved).await?;
        *self.mouse.lock().unwrap_or_else(|e| e.into_inner()) = (x, y);
        Ok(())
    }

    /// Moves to (x, y) with the left button held (a drag step), in `steps` moves.
    pub async fn drag_to(&self, x: f64, y: f64, steps: u32) -> Result<(), HostError> {
        self.glide(x, y, steps, LEFT_BUTTONS).await
    }

    /// Presses the left button where the mouse is.
    pub async fn press(&self) -> Result<(), HostError> {
        self.button(DispatchMouseEventType::MousePressed, LEFT_BUTTONS).await
    }

    /// Releases the left button where the mouse is.
    pub async fn release(&self) -> Result<(), HostError> {
        self.button(DispatchMouseEventType::MouseReleased, 0).await
    }

    async fn button(&self, kind: DispatchMouseEventType, buttons: i64) -> Result<(), HostError> {
        let (x, y) = *self.mouse.lock().unwrap_or_else(|e| e.into_inner());
        let mut event = DispatchMouseEventParams::new(kind, x, y);
        event.button = Some(MouseButton::Left);
        event.buttons = Some(buttons);
        event.click_count = Some(1);
        event.pointer_type = Some(DispatchMouseEventPointerType::Mouse);
        self.page.execute(&event).await?;
        Ok(())
    }

    /// Moves to (x, y) and clicks the left button there.
    pub async fn click_at(&self, x: f64, y: f64) -> Result<(), HostError> {
        self.move_to(x, y).await?;
        self.press().await?;
        self.release().await
    }

    /// Presses at `from`, moves to `to` through `steps` moves with the button held, releases.
    pub async fn drag(&self, from: (f64, f64), to: (f64, f64), steps: u32) -> Result<(), HostError> {
        self.move_to(from.0, from.1).await?;
        self.press().await?;
        self.glide(to.0, to.1, steps, LEFT_BUTTONS).await?;
        self.release().await
    }

    /// Taps (touchStart then touchEnd) at (x, y) with touch emulation on.
    pub async fn tap(&self, x: f64, y: f64) -> Result<(), HostError> {
        let mut touch = SetTouchEmulationEnabledParams::new(true);
        touch.max_touch_points = Some(1);
        self.page.execute(&touch).await?;
        let mut point = TouchPoint::new(x, y);
        (point.id, point.radius_x, point.radius_y, point.force) = (Some(1.0), Some(1.0), Some(1.0), Some(1.0));
        self.page.execute(&DispatchTouchEventParams::new(DispatchTouchEventType::TouchStart, vec![point])).await?;
        // Raw JSON on purpose: chromiumoxide's typed touchEnd drops the required empty array
        // (`reference/spike.md` P2).
        self.page.call("Input.dispatchTouchEvent", json!({"type": "touchEnd", "touchPoints": []})).await?;
        self.page.execute(&SetTouchEmulationEnabledParams::new(false)).await?;
        Ok(())
    }

    /// Presses and releases a key on whatever has focus.
    pub async fn press_key(&self, key: Key) -> Result<(), HostError> {
        self.press_key_with(key, 0).await
    }

    /// Presses and releases a key with modifiers held (`SHIFT` ...), e.g. Shift+Tab.
    pub async fn press_key_with(&self, key: Key, modifiers: i64) -> Result<(), HostError> {
        self.key_down_with(key, modifiers).await?;
        self.key_up_with(key, modifiers).await
    }

    /// Presses a key and holds it (a `keydown`; `key_up` releases it).
    pub async fn key_down(&self, key: Key) -> Result<(), HostError> {
        self.key_down_with(key, 0).await
    }

    /// Releases a held key (a `keyup`; Space activates a focused button here).
    pub async fn key_up(&self, key: Key) -> Result<(), HostError> {
        self.key_up_with(key, 0).await
    }

    async fn key_down_with(&self, key: Key, modifiers: i64) -> Result<(), HostError> {
        let kind = if key.text.is_some() { DispatchKeyEventType::KeyDown } else { DispatchKeyEventType::RawKeyDown };
        let mut down = key_event(kind, key, modifiers);
        down.text = key.text.map(str::to_string);
        down.unmodified_text = key.text.map(str::to_string);
        self.page.execute(&down).await?;
        Ok(())
    }

    async fn key_up_with(&self, key: Key, modifiers: i64) -> Result<(), HostError> {
        self.page.execute(&key_event(DispatchKeyEventType::KeyUp, key, modifiers)).await?;
        Ok(())
    }

    /// Types `text` character by character as trusted key presses into the focused element.
    pub async fn type_text(&self, text: &str) -> Result<(), HostError> {
        for ch in text.chars() {
            let s = ch.to_string();
            let (code, vk) = if ch.is_ascii_alphabetic() {
                (format!("Key{}", ch.to_ascii_uppercase()), i64::from(ch.to_ascii_uppercase() as u8))
            } else if ch.is_ascii_digit() {
                (format!("Digit{ch}"), i64::from(ch as u8))
            } else if ch == ' ' {
                ("Space".to_string(), 32)
            } else {
                (String::new(), 0)
            };
            let mut down = DispatchKeyEventParams::new(DispatchKeyEventType::KeyDown);
            (down.key, down.code, down.windows_virtual_key_code) = (Some(s.clone()), Some(code.clone()), Some(vk));
            (down.text, down.unmodified_text) = (Some(s.clone()), Some(s.clone()));
            self.page.execute(&down).await?;
            let mut up = DispatchKeyEventParams::new(DispatchKeyEventType::KeyUp);
            (up.key, up.code, up.windows_virtual_key_code) = (Some(s), Some(code), Some(vk));
            self.page.execute(&up).await?;
        }
        Ok(())
    }
}

/// A key event for `key` with `modifiers` held (its key, code and virtual key codes).
pub(crate) fn key_event(kind: DispatchKeyEventType, key: Key, modifiers: i64) -> DispatchKeyEventParams {
    let mut e = DispatchKeyEventParams::new(kind);
    e.modifiers = Some(modifiers);
    (e.key, e.code) = (Some(key.key.to_string()), Some(key.code.to_string()));
    (e.windows_virtual_key_code, e.native_virtual_key_code) = (Some(key.vk), Some(key.vk));
    e
}
