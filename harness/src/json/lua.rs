//! How the Session's Lua code sees a decoded JSON value, so the Rust port answers every type
//! question the way the Lua original does: JSON objects and arrays are both tables, an empty
//! object and an empty array are the same empty table, `null` members do not exist, numbers are
//! integers when they have no fraction, and strings are measured in bytes. Also the Session's
//! timestamp grammar (`is_timestamp`) and an instant type to compare `expires_at` with `now`.

use serde_json::{Map, Value};
use std::sync::LazyLock;

/// `Number.MAX_SAFE_INTEGER`, the Session's default integer maximum.
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

static EMPTY: LazyLock<Map<String, Value>> = LazyLock::new(Map::new);

/// `type(v) == "table"`.
pub fn is_table(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::Object(_)) | Some(Value::Array(_)))
}

/// The table as a keyed map: an object, or an empty array (the same empty table). A non-empty
/// array has integer keys, which no strict object allows, so it gives `None`.
pub fn as_map(v: Option<&Value>) -> Option<&Map<String, Value>> {
    match v {
        Some(Value::Object(m)) => Some(m),
        Some(Value::Array(a)) if a.is_empty() => Some(&EMPTY),
        _ => None,
    }
}

/// `has_only_keys(v, allowed)`: a table whose keys are all in `allowed`.
pub fn only_keys(v: Option<&Value>, allowed: &[&str]) -> bool {
    as_map(v).is_some_and(|m| m.iter().all(|(k, val)| val.is_null() || allowed.contains(&k.as_str())))
}

/// `is_array(v)`: `json.encode(v)` starts with `[`: any array, or an empty object.
pub fn is_array(v: Option<&Value>) -> bool {
    match v {
        Some(Value::Array(_)) => true,
        Some(Value::Object(m)) => m.values().all(Value::is_null),
        _ => false,
    }
}

/// The items of an [`is_array`] value (empty for anything else).
pub fn items(v: Option<&Value>) -> &[Value] {
    match v {
        Some(Value::Array(a)) => a,
        _ => &[],
    }
}

/// `bounded_array(v, max, min)`.
pub fn bounded_array(v: Option<&Value>, max: usize, min: usize) -> bool {
    is_array(v) && (min..=max).contains(&items(v).len())
}

/// Member `key` of a table; `null` counts as absent.
pub fn get<'a>(v: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    match v {
        Some(Value::Object(m)) => m.get(key).filter(|x| !x.is_null()),
        _ => None,
    }
}

/// `is_string(v, max, allow_empty)`: byte length within bounds.
pub fn is_string(v: Option<&Value>, max: usize, allow_empty: bool) -> bool {
    matches!(v, Some(Value::String(s)) if (allow_empty || !s.is_empty()) && s.len() <= max)
}

/// Optional string member: absent, or a string of at most `max` bytes (empty allowed).
pub fn opt_string(v: Option<&Value>, max: usize) -> bool {
    v.is_none() || is_string(v, max, true)
}

pub fn as_str(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str)
}

/// `is_number(v)`: a finite number (parsed JSON numbers always are).
pub fn num(v: Option<&Value>) -> Option<f64> {
    v.and_then(Value::as_f64).filter(|f| f.is_finite())
}

pub fn is_number(v: Option<&Value>) -> bool {
    num(v).is_some()
}

/// `is_integer(v, min, max)`: a finite number without fraction within `[min, max]`.
pub fn is_integer(v: Option<&Value>, min: f64, max: f64) -> bool {
    num(v).is_some_and(|f| f.fract() == 0.0 && f >= min && f <= max)
}

/// Lua `==` between two members: numbers compare by value, everything else structurally.
pub fn lua_eq(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (Some(Value::Number(x)), Some(Value::Number(y))) => x.as_f64() == y.as_f64(),
        (Some(x), Some(y)) => x == y,
        (None, None) => true,
        _ => false,
    }
}

/// A JSON number from an `f64`, written as an integer when it is one (canonical output is the
/// same either way; integers keep `Value` equality with parsed input).
pub fn number(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER {
        Value::from(f as i64)
    } else {
        serde_json::Number::from_f64(f).map(Value::Number).unwrap_or(Value::Null)
    }
}

/// An instant: seconds since the Unix epoch plus nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    pub secs: i64,
    pub nanos: u32,
}

impl Timestamp {
    /// The current system time.
    pub fn now() -> Timestamp {
        let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        Timestamp { secs: d.as_secs() as i64, nanos: d.subsec_nanos() }
    }

    /// The Session's strict grammar (`is_timestamp`): `YYYY-MM-DDTHH:MM:SS[.1-9 digits]Z`,
    /// 1..64 bytes, year >= 1, a real calendar date (leap years), hours 0-23, seconds 0-59.
    pub fn parse_session(s: &str) -> Option<Timestamp> {
        if s.is_empty() || s.len() > 64 {
            return None;
        }
        let b = s.as_bytes();
        if b.len() < 20 || *b.last()? != b'Z' {
            return None;
        }
        let body = &b[..b.len() - 1];
        let (main, frac) = if body.len() > 19 {
            if body[19] != b'.' {
                return None;
            }
            let f = &body[20..];
            if f.is_empty() || f.len() > 9 || !f.iter().all(u8::is_ascii_digit) {
                return None;
            }
            (&body[..19], Some(f))
        } else {
            (body, None)
        };
        if main.len() != 19 {
            return None;
        }
        Self::from_parts(main, frac, 0)
    }

    /// RFC 3339 as Go's `time.Parse(time.RFC3339, …)` accepts it: the Session grammar, any
    /// number of fraction digits, and a `Z` or `±HH:MM` offset. Used for `--now` and by the
    /// codec's selection timestamp check.
    pub fn parse_rfc3339(s: &str) -> Option<Timestamp> {
        let b = s.as_bytes();
        if b.len() < 20 {
            return None;
        }
        let main = &b[..19];
        let mut rest = &b[19..];
        let mut frac = None;
        if rest.first() == Some(&b'.') {
            let n = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if n == 0 {
                return None;
            }
            frac = Some(&rest[1..1 + n]);
            rest = &rest[1 + n..];
        }
        let offset = match rest {
            [b'Z'] | [b'z'] => 0,
            [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
                let d = |c: &u8| c.is_ascii_digit();
                if !(d(h1) && d(h2) && d(m1) && d(m2)) {
                    return None;
                }
                let h = ((h1 - b'0') * 10 + (h2 - b'0')) as i64;
                let m = ((m1 - b'0') * 10 + (m2 - b'0')) as i64;
                if h > 23 || m > 59 {
                    return None;
                }
                let o = h * 3600 + m * 60;
                if *sign == b'+' {
                    o
                } else {
                    -o
                }
            }
            _ => return None,
        };
        Self::from_parts(main, frac, offset)
    }

    fn from_parts(main: &[u8], frac: Option<&[u8]>, offset: i64) -> Option<Timestamp> {
        let digits = |r: std::ops::Range<usize>| -> Option<i64> {
            let part = main.get(r)?;
            if !part.iter().all(u8::is_ascii_digit) {
                return None;
            }
            Some(part.iter().fold(0i64, |acc, c| acc * 10 + (c - b'0') as i64))
        };
        if main[4] != b'-'
            || main[7] != b'-'
            || !(main[10] == b'T' || main[10] == b't')
            || main[13] != b':'
            || main[16] != b':'
        {
            return None;
        }
        let (y, mo, d) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
        let (h, mi, se) = (digits(11..13)?, digits(14..16)?, digits(17..19)?);
        if y < 1 || !(1..=12).contains(&mo) || d < 1 || h > 23 || mi > 59 || se > 59 {
            return None;
        }
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
        let dim = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
        if d > dim[(mo - 1) as usize] {
            return None;
        }
        let mut nanos = 0u32;
        if let Some(f) = frac {
            for (i, c) in f.iter().enumerate() {
                if i < 9 {
                    nanos = nanos * 10 + (c - b'0') as u32;
                }
            }
            for _ in f.len()..9 {
                nanos *= 10;
            }
        }
        let days = days_from_civil(y, mo, d);
        Some(Timestamp { secs: days * 86_400 + h * 3600 + mi * 60 + se - offset, nanos })
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `is_timestamp(v)` of the Session.
pub fn is_timestamp(v: Option<&Value>) -> bool {
    as_str(v).and_then(Timestamp::parse_session).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_timestamp_grammar() {
        for ok in [
            "2026-09-04T12:00:00Z",
            "2024-02-29T23:59:59.123456789Z",
            "2026-09-04T12:00:00.000Z",
            "2000-02-29T00:00:00.1Z",
        ] {
            assert!(Timestamp::parse_session(ok).is_some(), "{ok}");
        }
        for bad in [
            "2026-09-04T12:00:00+00:00",
            "2026-09-04T12:00:00.1234567890Z",
            "2026-02-29T00:00:00Z",
            "1900-02-29T00:00:00Z",
            "2026-09-04T24:00:00Z",
            "2026-09-04T12:60:00Z",
            "2026-09-04T12:00:60Z",
            "2026-09-04T12:00:00.Z",
            "0000-01-01T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-09-04 12:00:00Z",
            "2026-09-04T12:00:00z",
        ] {
            assert!(Timestamp::parse_session(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn instants_compare() {
        let a = Timestamp::parse_session("1970-01-01T00:00:01Z").unwrap();
        assert_eq!(a, Timestamp { secs: 1, nanos: 0 });
        let b = Timestamp::parse_rfc3339("1970-01-01T01:00:01+01:00").unwrap();
        assert_eq!(a, b);
        let c = Timestamp::parse_session("2026-09-04T12:00:00.5Z").unwrap();
        assert_eq!(c.nanos, 500_000_000);
        assert_eq!(Timestamp::parse_session("2026-09-04T12:00:00Z").unwrap().secs, 1_788_523_200);
    }
}
