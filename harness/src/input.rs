//! Trusted input through CDP `Input.dispatch*` on the top page's session; Chromium routes it into
//! out-of-process iframes itself. Each method reads like the user action it sends.

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

    /// Looks a key up by its DOM `key` or `code` name (`Tab`, `Escape`, `KeyA`, `a` ...).
    pub fn named(name: &str) -> Option<Key> {
        [
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
        ]
        .into_iter()
        .find(|k| k.key.eq_ignore_ascii_case(name) || k.code.eq_ignore_ascii_case(name))
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
            let mut params =
                json!({"type": "mouseMoved", "x": px, "y": py, "buttons": buttons, "pointerType": "mouse"});
            if buttons != 0 {
                params["button"] = json!("left");
            }
            self.page.call("Input.dispatchMouseEvent", params).await?;
            *self.mouse.lock().unwrap_or_else(|e| e.into_inner()) = (px, py);
        }
        Ok(())
    }

    /// Moves a pen (CDP `pointerType: "pen"`, no buttons) to (x, y) in one step.
    pub async fn pen_move_to(&self, x: f64, y: f64) -> Result<(), HostError> {
        self.page
            .call(
                "Input.dispatchMouseEvent",
                json!({"type": "mouseMoved", "x": x, "y": y, "buttons": 0, "pointerType": "pen"}),
            )
            .await?;
        *self.mouse.lock().unwrap_or_else(|e| e.into_inner()) = (x, y);
        Ok(())
    }

    /// Moves to (x, y) with the left button held (a drag step), in `steps` moves.
    pub async fn drag_to(&self, x: f64, y: f64, steps: u32) -> Result<(), HostError> {
        self.glide(x, y, steps, LEFT_BUTTONS).await
    }

    /// Presses the left button where the mouse is.
    pub async fn press(&self) -> Result<(), HostError> {
        self.button("mousePressed", LEFT_BUTTONS).await
    }

    /// Releases the left button where the mouse is.
    pub async fn release(&self) -> Result<(), HostError> {
        self.button("mouseReleased", 0).await
    }

    async fn button(&self, kind: &str, buttons: i64) -> Result<(), HostError> {
        let (x, y) = *self.mouse.lock().unwrap_or_else(|e| e.into_inner());
        self.page
            .call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "buttons": buttons, "clickCount": 1, "pointerType": "mouse"}),
            )
            .await?;
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
        self.page.call("Emulation.setTouchEmulationEnabled", json!({"enabled": true, "maxTouchPoints": 1})).await?;
        self.page
            .call(
                "Input.dispatchTouchEvent",
                json!({"type": "touchStart", "touchPoints": [{"x": x, "y": y, "id": 1, "radiusX": 1, "radiusY": 1, "force": 1}]}),
            )
            .await?;
        // Raw JSON on purpose: chromiumoxide's typed touchEnd drops the required empty array
        // (`reference/spike.md` P2).
        self.page.call("Input.dispatchTouchEvent", json!({"type": "touchEnd", "touchPoints": []})).await?;
        self.page.call("Emulation.setTouchEmulationEnabled", json!({"enabled": false})).await?;
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
        let mut down = json!({
            "modifiers": modifiers,
            "type": if key.text.is_some() { "keyDown" } else { "rawKeyDown" },
            "key": key.key, "code": key.code,
            "windowsVirtualKeyCode": key.vk, "nativeVirtualKeyCode": key.vk,
        });
        if let Some(text) = key.text {
            down["text"] = json!(text);
            down["unmodifiedText"] = json!(text);
        }
        self.page.call("Input.dispatchKeyEvent", down).await?;
        Ok(())
    }

    async fn key_up_with(&self, key: Key, modifiers: i64) -> Result<(), HostError> {
        self.page
            .call(
                "Input.dispatchKeyEvent",
                json!({"type": "keyUp", "modifiers": modifiers, "key": key.key, "code": key.code, "windowsVirtualKeyCode": key.vk, "nativeVirtualKeyCode": key.vk}),
            )
            .await?;
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
            self.page
                .call(
                    "Input.dispatchKeyEvent",
                    json!({"type": "keyDown", "key": s, "code": code, "text": s, "unmodifiedText": s, "windowsVirtualKeyCode": vk}),
                )
                .await?;
            self.page
                .call(
                    "Input.dispatchKeyEvent",
                    json!({"type": "keyUp", "key": s, "code": code, "windowsVirtualKeyCode": vk}),
                )
                .await?;
        }
        Ok(())
    }
}
