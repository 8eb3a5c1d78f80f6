//! [`SharedStr`]: an immutable string that is cheap to clone, for the names every call carries
//! (the tool's name and the call id in [`crate::ToolContext`] and [`crate::Meta`]).
//!
//! A call hands its tool name and id to the tool's context and to the envelope's meta; as
//! `String`s each hand-off was an allocation and a copy, and as an `Arc<str>` each was an atomic
//! reference count (and one more when dropped), which costs more than the copy of a short name.
//! A `SharedStr` keeps a string of up to 23 bytes inline (most tool names and call ids: a clone
//! is a copy of 24 bytes) and a longer one in one shared `Arc<str>` (a clone is a reference
//! count); the storage is [`smol_str`]'s. It reads like a `&str` (`Deref<Target = str>`),
//! compares with `str`, `&str` and `String`, and serializes as a plain JSON string.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use smol_str::SmolStr;
use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

/// An immutable, cheaply cloned string: inline up to 23 bytes, else a shared `Arc<str>`.
/// Three words.
///
/// ```
/// use toolwright_core::SharedStr;
/// let name = SharedStr::from("search");
/// let copy = name.clone(); // no allocation
/// assert_eq!(copy, "search");
/// assert_eq!(copy.len(), 6);
/// assert_eq!(serde_json::to_string(&copy).unwrap(), "\"search\"");
/// let owned: String = copy.into();
/// assert_eq!(owned, "search");
/// ```
#[derive(Clone, Default)]
pub struct SharedStr(SmolStr);

impl SharedStr {
    /// A string known at compile time: kept by reference, never copied or allocated.
    ///
    /// ```
    /// use toolwright_core::SharedStr;
    /// const DONE: SharedStr = SharedStr::from_static("The call was cancelled before it started.");
    /// assert_eq!(DONE, "The call was cancelled before it started.");
    /// ```
    pub const fn from_static(s: &'static str) -> Self {
        SharedStr(SmolStr::new_static(s))
    }

    /// The string.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl Deref for SharedStr {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for SharedStr {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for SharedStr {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Debug for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl PartialEq for SharedStr {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for SharedStr {}

impl PartialOrd for SharedStr {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SharedStr {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for SharedStr {
    /// Hashes as the `str` does, so a map keyed by `SharedStr` is looked up with a `&str`.
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl PartialEq<str> for SharedStr {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for SharedStr {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for SharedStr {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<SharedStr> for str {
    fn eq(&self, other: &SharedStr) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<SharedStr> for &str {
    fn eq(&self, other: &SharedStr) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<SharedStr> for String {
    fn eq(&self, other: &SharedStr) -> bool {
        self.as_str() == other.as_str()
    }
}

impl From<&str> for SharedStr {
    fn from(s: &str) -> Self {
        SharedStr(SmolStr::new(s))
    }
}

impl From<String> for SharedStr {
    fn from(s: String) -> Self {
        SharedStr(SmolStr::from(s))
    }
}

impl From<&String> for SharedStr {
    fn from(s: &String) -> Self {
        SharedStr::from(s.as_str())
    }
}

impl From<Arc<str>> for SharedStr {
    fn from(s: Arc<str>) -> Self {
        SharedStr(SmolStr::from(s))
    }
}

impl From<&SharedStr> for SharedStr {
    fn from(s: &SharedStr) -> Self {
        s.clone()
    }
}

impl From<SharedStr> for String {
    fn from(s: SharedStr) -> Self {
        s.as_str().to_owned()
    }
}

impl Serialize for SharedStr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for SharedStr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Borrowed when the input allows: a short string is then copied inline, not allocated.
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Ok(match s {
            std::borrow::Cow::Borrowed(b) => SharedStr::from(b),
            std::borrow::Cow::Owned(o) => SharedStr::from(o),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_compares_and_hashes_like_the_str() {
        let a = SharedStr::from(String::from("tool_a"));
        let b = SharedStr::from("tool_a");
        assert_eq!(a, b);
        assert_eq!(a, "tool_a");
        assert_eq!("tool_a", a);
        assert_eq!(String::from("tool_a"), b);
        assert!(a.starts_with("tool"));
        let mut set = std::collections::HashSet::new();
        set.insert(a.clone());
        assert!(set.contains("tool_a"));
        assert_eq!(format!("{a} {b:?}"), "tool_a \"tool_a\"");
        assert!(SharedStr::default().is_empty());
        assert_eq!(SharedStr::from(""), SharedStr::default());
        assert_eq!(std::mem::size_of::<SharedStr>(), 24);
        // Past 23 bytes: one shared allocation, the same text.
        let long = SharedStr::from("a_tool_name_longer_than_twenty_three_bytes");
        let copy = long.clone();
        assert_eq!(copy, long);
        assert_eq!(copy.as_ptr(), long.as_ptr());
        let (a, b) = (SharedStr::from("a"), SharedStr::from("b"));
        assert!(a < b);
    }

    #[test]
    fn round_trips_as_a_json_string() {
        let s = SharedStr::from("call \"1\"");
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, r#""call \"1\"""#);
        let back: SharedStr = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
        let plain: SharedStr = serde_json::from_str(r#""call-1""#).unwrap();
        assert_eq!(plain, "call-1");
        assert!(serde_json::from_str::<SharedStr>("1").is_err());
    }
}
