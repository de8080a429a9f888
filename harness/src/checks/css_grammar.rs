//! Selectors written from the Selectors Level 4 grammar and CSS Syntax (issue 43), each to be
//! compared with Chromium's native `querySelectorAll` (a form it throws on must be
//! `invalid-request`; any other must match exactly): every An+B production and its malformed
//! neighbours on the four nth pseudo-classes (with and without `of S`), every attribute-selector
//! operator with quoting, escapes, flags and comments, forgiving and unforgiving lists, `:has` in
//! every nesting with `:scope` and `&`, the nesting selector, escapes, namespaces, comments, case,
//! and malformed structure. Pure: the tree they run on is `fixtures/inspection/css-grammar.html`.

/// A grammar class of [`grammar_selectors`].
pub type Class = &'static str;

/// An+B arguments: the productions of CSS Syntax's An+B microsyntax, with white space, sign,
/// case and comment variants, and the malformed neighbours of each.
pub const AN_PLUS_B: &[&str] = &[
    // keywords and integers
    "odd",
    "even",
    "ODD",
    "eVeN",
    " odd ",
    "0",
    "1",
    "3",
    "12",
    "13",
    "-1",
    "+1",
    "+0",
    "-0",
    "01",
    "+ 1",
    "- 1",
    // <n-dimension> and friends
    "n",
    "N",
    "+n",
    "-n",
    "-N",
    "0n",
    "1n",
    "2n",
    "-2n",
    "+2n",
    "12n",
    "-0n",
    "\\6e",
    "2\\6e",
    // An+B with every spacing the grammar allows
    "n+0",
    "n-0",
    "n+1",
    "n-1",
    "n- 1",
    "n -1",
    "n - 1",
    "n+ 1",
    "n + 1",
    "+n+1",
    "-n+3",
    "-n + 3",
    "-n+ 3",
    "-n- 1",
    "2n+1",
    "2n-1",
    "2n +1",
    "2n+ 1",
    "2n + 1",
    "2n- 1",
    "2n -1",
    "2n - 1",
    "-2n+5",
    "3n+0",
    "3n-3",
    "0n+5",
    "1n+0",
    "2N+1",
    "2n+01",
    "n-12",
    "n+13",
    " 2n+1 ",
    "/**/2n+1/**/",
    "2n/**/+/**/1",
    // malformed neighbours
    "n- 1 2",
    "2n+-1",
    "2n- -1",
    "2n+ +1",
    "2n 1",
    "- n",
    "+ n",
    "2 n",
    "n-",
    "n+",
    "2n+",
    "2n +",
    "-",
    "+",
    "++n",
    "--n",
    "n--1",
    "2n1",
    "1.5",
    "1.0",
    "1e1",
    "2n+1.5",
    "odd odd",
    "oddd",
    "odd 1",
    "odd+1",
    "even-1",
    "n-+1",
    "3 n",
    "+-1",
    "--1",
    "(2n)",
    "2n+1,",
    "",
    " ",
    "n n",
    "2n+1n",
    "nn",
    "-n-",
    "+-n",
    "2.0n",
];

fn nth() -> Vec<(Class, String)> {
    let mut v = Vec::new();
    for p in ["nth-child", "nth-last-child", "nth-of-type", "nth-last-of-type"] {
        for f in AN_PLUS_B {
            v.push(("an+b", format!(":{p}({f})")));
        }
    }
    // Typed and of-S forms on a subset that covers each production.
    for f in ["odd", "even", "n", "-n+3", "2n+1", "3n-3", "0", "1", "-1", "n- 1", "2n- 1", "n- 1 2", "2n+-1"] {
        v.push(("an+b", format!("li:nth-child({f})")));
        v.push(("an+b", format!("b:nth-of-type({f})")));
        v.push(("an+b", format!("b:nth-last-of-type({f})")));
        v.push(("an+b", format!(":nth-child({f} of .k)")));
        v.push(("an+b", format!(":nth-last-child({f} of li, b)")));
    }
    for s in [
        ":nth-child(of .k)",
        ":nth-child(2 of)",
        ":nth-child(2 of .k,)",
        ":nth-child(2 of :is(.k))",
        ":nth-child(2 of :hover)",
        ":nth-child(2 of > li)",
        ":nth-child(2of .k)",
        ":nth-child(2 OF .k)",
        ":nth-child(2n+1 of li, .k)",
        ":nth-of-type(2 of .k)",
        ":nth-child(1 of :has(.c))",
        ":nth-child(odd of :not(.k))",
        ":nth-child(2 of :nth-child(odd))",
        ":first-child",
        ":last-child",
        ":only-child",
        ":first-of-type",
        ":last-of-type",
        ":only-of-type",
        ":first-child()",
        ":nth-child",
    ] {
        v.push(("an+b", s.to_string()));
    }
    v
}

fn attributes() -> Vec<(Class, String)> {
    let mut v = Vec::new();
    for name in ["foo", "data-x", "class", "lang"] {
        v.push(("attribute", format!("[{name}]")));
        for op in ["=", "~=", "|=", "^=", "$=", "*="] {
            for val in ["bar", "BAR", "", "a", "en", "a b"] {
                for flag in ["", " i", " s"] {
                    v.push(("attribute", format!("[{name}{op}\"{val}\"{flag}]")));
                }
            }
        }
    }
    for s in [
        "[foo=bar]",
        "[foo='bar']",
        "[foo=\"bar\"i]",
        "[foo=bar i]",
        "[foo=bar I]",
        "[foo=bar S]",
        "[foo=bar/**/i]",
        "[foo='bar' /**/ i]",
        "[foo='bar'/**/i]",
        "[/**/foo=bar]",
        "[foo/**/=bar]",
        "[foo=/**/bar]",
        "[foo=bar/**/]",
        "[foo=bar i/**/]",
        "[ foo = \"bar\" i ]",
        "[foo='bar']i",
        "[foo=bar baz]",
        "[foo=bar x]",
        "[foo==bar]",
        "[foo= ]",
        "[=bar]",
        "[foo=bar i i]",
        "[foo=1]",
        "[foo=-]",
        "[foo=--]",
        "[foo=\"unterminated",
        "[foo",
        "[foo=\\62 ar]",
        "[foo=\"b\\ar\"]",
        "[FOO]",
        "[Foo=Bar]",
        "[class~=\"\"]",
        "[class~=\" \"]",
        "[class=\"\"]",
        "[class=\"  \"]",
        "[class~=two]",
        "[title]",
        "[title=\"\"]",
        "[lang|=en]",
        "[lang|=EN]",
        "[lang|=fr]",
        "[type=checkbox]",
        "[type=checkbox s]",
        "[type=CHECKBOX i]",
        "[target=_blank]",
        "[rel~=prev]",
        "[rel~=Prev]",
        "[hreflang|=en]",
        "[data-x=\"a'b\\\"c\"]",
        "[data-x='a\\'b\"c']",
        "[data-x=é]",
        "[data-x=\\e9]",
        "[data-y=\"\\\\\"]",
        "[data-x=a\\ b\\ c]",
        "[data-x^=a][data-x$=c]",
        "[value=On]",
        "[value=on]",
        "[value=on i]",
        "[checked]",
        "[ID=a1]",
        "[id=A1]",
    ] {
        v.push(("attribute", s.to_string()));
    }
    v
}

const FORGIVING: &[&str] = &[
    ":is()",
    ":where()",
    ":is( )",
    ":is(,)",
    ":is(.x, )",
    ":is(, .x)",
    ":is(.x,,.d)",
    ":is(:foo, .x)",
    ":is(.x, :foo(bar))",
    ":is(.x, 1)",
    ":is(.x, !)",
    ":is(.x, [)",
    ":is(.x, ::before)",
    ":is(.x, > .d)",
    ":where(.x, $$)",
    ":is(:is(:foo), .e)",
    ":is(.x :foo, .e)",
    ":is(.x .d, .e :not(:foo))",
    ":where(:is())",
    ":is(*)",
    ":is(#top)",
    ":is(.e):where(.c, .e)",
    ".x:is()",
    ":not()",
    ":not(:foo)",
    ":not(.x, :foo)",
    ":not(.x,)",
    ":not(:is())",
    ":not(:where(:foo))",
    ":not(.k, .c)",
    ":not(:not(.k))",
    ":is(.k, :hover)",
    ":where(:hover)",
    ":is(.x, @y)",
    ":is(.x, {})",
    ":is(.x, .d) > :where(.e, :foo, .c)",
];

const HAS: &[&str] = &[
    ":has(.d)",
    ":has(> .d)",
    ":has(+ .e)",
    ":has(~ .x)",
    ":has(.d .e)",
    ".x:has(.d .e)",
    ".x:has(> .d > .c)",
    ".x:has(.d + .e)",
    ".x:has(.c ~ .sib)",
    ":has(:scope .c)",
    ":has(:scope > .d)",
    ":has(:scope)",
    ":has(:has(.c))",
    ":has(:is(:has(.c)))",
    ":has(:not(:has(.c)))",
    ":has(:where(:has(.c)))",
    ":is(:has(.c))",
    ":not(:has(.e))",
    ":has(:nth-child(2 of .c))",
    ":has(> :first-child.c)",
    ".d:has(.c, .e)",
    ":has(.c):has(.e)",
    ":has(+ :has(.c))",
    ":has(:empty)",
    ":has(~ :has(> .c))",
    ":has(&)",
    ":has(& .c)",
    ":has(:is(& .c))",
    ":has(> *:not(:has(*)))",
    "li:has(+ li.k)",
    ":has()",
    ":has(> )",
    ":has(::before)",
    ":has(:foo)",
    ":has(.d, :foo)",
    ":has(,.d)",
    ":has(:hover)",
    ":has(.x :scope)",
    "section:has(> .x:has(.c))",
    ":has(> .e):not(:has(> .d))",
];

const NESTING: &[&str] = &[
    "&",
    "& > *",
    "& .x",
    ":is(&)",
    "& &",
    "&.x",
    ".x&",
    "&:has(.c)",
    ":not(&)",
    ":where(&) > div",
    "& + *",
    "div&",
    "&div",
    "&&",
    ":scope&",
    "& ol > li:nth-child(2)",
    "&, .x",
];

const ESCAPES: &[&str] = &[
    "#\\31 23",
    "#\\00031 23",
    ".\\31 a",
    "#\\#x",
    ".a\\:b",
    "#a\\.b",
    ".a\\.b",
    "#é",
    "#\\e9",
    "#\\E9 ",
    ".ü-x",
    "#-",
    ".--",
    "._",
    "#sp\\ ace",
    ".\\[x\\]",
    "#\\-",
    "#123",
    ".1a",
    "#\\0",
    "#\\",
    ".a\\",
    "\\73 pan",
    "SP\\41 N",
    "sp\\61n",
    "\\*",
    "#a\\ ",
    "#\\61 1",
    ".\\6f ne.two",
    "#\\ ",
];

const NAMESPACES: &[&str] = &[
    "*|*",
    "|*",
    "*|span",
    "|span",
    "*|a",
    "|a",
    "svg|a",
    "*|rect",
    "|rect",
    "[*|href]",
    "[|href]",
    "[xlink|href]",
    "*|*:not(|*)",
    "a",
    "A",
    "rect",
    "RECT",
    "foreignObject",
    "foreignobject",
    "[viewBox]",
    "[viewbox]",
    "mi",
    "math *",
    "svg > *",
    "svg a",
    "a:first-of-type",
    "a:only-of-type",
    "*|*|*",
    "|",
    "*|",
    "ns|*",
    "svg *|*",
    "use[*|href]",
];

const STRUCTURE: &[&str] = &[
    "div/**/p",
    "div /**/ > /**/ p",
    "/**/ol",
    "ol/**/",
    ".x/**/.Top",
    "#top/**/, /**/#ol",
    ":is(/**/.d/**/)",
    "li:not(/* x */.k)",
    "/* unterminated",
    "ol /*",
    "a/**/:hover",
    "DIV",
    "Li",
    "#TOP",
    ".top",
    ".TOP",
    ".Top",
    ":ROOT",
    ":Nth-Child(2)",
    ":NOT(.k)",
    "> a",
    "a >",
    "a > > b",
    "a,",
    ",a",
    "a,,b",
    "a + + b",
    "a ~~ b",
    "a || b",
    "a | b",
    ".5cm",
    "#5",
    "..x",
    ".",
    "#",
    "[]",
    "()",
    "a)",
    "a(",
    "{",
    "a{}",
    "a;b",
    "@media",
    "!important",
    "a !",
    "%",
    "1",
    "a:",
    "a::",
    ":",
    "::",
    ":scope",
    ":scope > *",
    ":scope *",
    "* :scope",
    ":not(:scope)",
    ":scope:first-child",
    ":is(:scope) div",
    ":root",
    ":root > *",
    ":empty",
    "p:empty",
    ":not(:empty)",
    ":empty:first-child",
    "*",
    "* > *",
    "* + *",
    "* ~ *",
    "\t#ol\n>\u{c}li ",
    "ol\u{a0}li",
];

/// Every grammar selector, with its class, each once, in a stable order.
pub fn grammar_selectors() -> Vec<(Class, String)> {
    let mut all = nth();
    all.extend(attributes());
    for (class, list) in [
        ("forgiving", FORGIVING),
        ("has", HAS),
        ("nesting", NESTING),
        ("escape", ESCAPES),
        ("namespace", NAMESPACES),
        ("structure", STRUCTURE),
    ] {
        all.extend(list.iter().map(|s| (class, s.to_string())));
    }
    let mut seen = std::collections::BTreeSet::new();
    all.retain(|(_, s)| seen.insert(s.clone()));
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_is_present_and_each_selector_is_tried_once() {
        let all = grammar_selectors();
        for c in ["an+b", "attribute", "forgiving", "has", "nesting", "escape", "namespace", "structure"] {
            assert!(all.iter().filter(|(k, _)| *k == c).count() >= 15, "class {c} is thin");
        }
        assert!(all.len() >= 1000, "{} selectors", all.len());
        let unique: std::collections::BTreeSet<_> = all.iter().map(|(_, s)| s).collect();
        assert_eq!(unique.len(), all.len());
    }

    #[test]
    fn no_selector_is_longer_than_the_512_characters_find_takes() {
        assert!(grammar_selectors().iter().all(|(_, s)| s.chars().count() <= 512));
    }
}
