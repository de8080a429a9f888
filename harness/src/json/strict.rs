//! A strict JSON reader that decodes numbers the way the Session's runtime does, for every place
//! where the harness must read JSON exactly as the Session would (attachment `content`, files).
//!
//! Why not `serde_json::from_str`: without its `float_roundtrip` feature serde_json parses some
//! floats one ulp off (for example `3.958259281516499e-302`), and the canonical form of such a
//! value would then differ from the Session's, which parses with Go's correctly rounded
//! `strconv`. Rust's `str::parse::<f64>` is correctly rounded too, so we parse numbers with it.
//! Enabling the serde_json feature would have rebuilt the whole dependency tree for one rule.
//!
//! Rules (Go `encoding/json` as the runtime uses it): RFC 8259 grammar, whitespace is space, tab,
//! CR, LF; integer literals that fit int64 stay integers, other numbers are float64 and must be
//! finite; duplicate object keys keep the last value; lone UTF-16 surrogates in `\u` escapes
//! become U+FFFD. Nesting is capped at 512 levels (anything past 32 is rejected later anyway).

use serde_json::{Map, Number, Value};

const MAX_NESTING: usize = 512;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid JSON at byte {offset}: {message}")]
pub struct JsonError {
    pub offset: usize,
    pub message: &'static str,
}

/// Parse one JSON document.
pub fn parse(text: &str) -> Result<Value, JsonError> {
    let mut p = Parser { b: text.as_bytes(), i: 0 };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i != p.b.len() {
        return Err(p.err("trailing data"));
    }
    Ok(v)
}

/// Parse bytes; invalid UTF-8 is replaced by U+FFFD first, as Go's decoder does inside strings.
pub fn parse_bytes(bytes: &[u8]) -> Result<Value, JsonError> {
    parse(&String::from_utf8_lossy(bytes))
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn err(&self, message: &'static str) -> JsonError {
        JsonError { offset: self.i, message }
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn eat(&mut self, lit: &[u8]) -> bool {
        if self.b[self.i..].starts_with(lit) {
            self.i += lit.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, JsonError> {
        if depth > MAX_NESTING {
            return Err(self.err("nesting too deep"));
        }
        match self.b.get(self.i) {
            None => Err(self.err("unexpected end")),
            Some(b'{') => {
                self.i += 1;
                let mut m = Map::new();
                self.ws();
                if self.eat(b"}") {
                    return Ok(Value::Object(m));
                }
                loop {
                    self.ws();
                    if self.b.get(self.i) != Some(&b'"') {
                        return Err(self.err("expected a string key"));
                    }
                    let k = self.string()?;
                    self.ws();
                    if !self.eat(b":") {
                        return Err(self.err("expected ':'"));
                    }
                    self.ws();
                    let v = self.value(depth + 1)?;
                    m.insert(k, v);
                    self.ws();
                    if self.eat(b",") {
                        continue;
                    }
                    if self.eat(b"}") {
                        return Ok(Value::Object(m));
                    }
                    return Err(self.err("expected ',' or '}'"));
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut a = Vec::new();
                self.ws();
                if self.eat(b"]") {
                    return Ok(Value::Array(a));
                }
                loop {
                    self.ws();
                    a.push(self.value(depth + 1)?);
                    self.ws();
                    if self.eat(b",") {
                        continue;
                    }
                    if self.eat(b"]") {
                        return Ok(Value::Array(a));
                    }
                    return Err(self.err("expected ',' or ']'"));
                }
            }
            Some(b'"') => self.string().map(Value::String),
            Some(b't') if self.eat(b"true") => Ok(Value::Bool(true)),
            Some(b'f') if self.eat(b"false") => Ok(Value::Bool(false)),
            Some(b'n') if self.eat(b"null") => Ok(Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.err("unexpected character")),
        }
    }

    fn number(&mut self) -> Result<Value, JsonError> {
        let start = self.i;
        let digits = |p: &mut Self| {
            let s = p.i;
            while p.b.get(p.i).is_some_and(u8::is_ascii_digit) {
                p.i += 1;
            }
            p.i - s
        };
        self.eat(b"-");
        let int_start = self.i;
        let n = digits(self);
        if n == 0 || (n > 1 && self.b[int_start] == b'0') {
            return Err(self.err("invalid number"));
        }
        let mut float = false;
        if self.eat(b".") {
            float = true;
            if digits(self) == 0 {
                return Err(self.err("invalid fraction"));
            }
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            float = true;
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if digits(self) == 0 {
                return Err(self.err("invalid exponent"));
            }
        }
        let text = std::str::from_utf8(&self.b[start..self.i]).map_err(|_| self.err("invalid number"))?;
        if !float {
            if let Ok(i) = text.parse::<i64>() {
                return Ok(Value::Number(i.into()));
            }
        }
        let f: f64 = text.parse().map_err(|_| self.err("invalid number"))?;
        Number::from_f64(f).map(Value::Number).ok_or_else(|| self.err("number out of range"))
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let h = self.b.get(self.i..self.i + 4).ok_or_else(|| self.err("short \\u escape"))?;
        let s = std::str::from_utf8(h).map_err(|_| self.err("bad \\u escape"))?;
        if !s.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(self.err("bad \\u escape"));
        }
        self.i += 4;
        Ok(u32::from_str_radix(s, 16).expect("hex digits"))
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.i += 1; // opening quote
        let mut out = String::new();
        loop {
            let start = self.i;
            while let Some(&c) = self.b.get(self.i) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.i += 1;
            }
            // The input is a &str and we stop only at ASCII bytes, so this slice is valid UTF-8.
            out.push_str(std::str::from_utf8(&self.b[start..self.i]).expect("utf-8 run"));
            match self.b.get(self.i) {
                None => return Err(self.err("unterminated string")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let e = *self.b.get(self.i).ok_or_else(|| self.err("unterminated escape"))?;
                    self.i += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let c = if (0xD800..0xDC00).contains(&hi) {
                                let save = self.i;
                                if self.eat(b"\\u") {
                                    let lo = self.hex4()?;
                                    if (0xDC00..0xE000).contains(&lo) {
                                        char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                                    } else {
                                        self.i = save;
                                        None
                                    }
                                } else {
                                    None
                                }
                            } else {
                                char::from_u32(hi)
                            };
                            out.push(c.unwrap_or('\u{FFFD}'));
                        }
                        _ => return Err(self.err("invalid escape")),
                    }
                }
                Some(_) => return Err(self.err("control character in string")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn grammar() {
        assert_eq!(
            parse(" {\"a\" : [1, -2.5e3, true, null, \"x\\u00e9\\ud83d\\ude00\"]} ").unwrap(),
            json!({"a": [1, -2500.0, true, null, "xé😀"]})
        );
        for bad in
            ["", "01", "1.", ".5", "[1,]", "{\"a\":1,}", "'a'", "\"\u{1}\"", "1e", "[1] x", "nul", "1e400", "\"\\x\""]
        {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse("\"\\ud800x\"").unwrap(), json!("\u{FFFD}x"));
        assert_eq!(parse("{\"a\":1,\"a\":2}").unwrap(), json!({"a": 2}));
        assert!(parse("9223372036854775808").unwrap().as_f64().is_some());
        assert_eq!(parse("3.958259281516499e-302").unwrap().as_f64(), Some(3.958259281516499e-302));
    }
}
