//! The `#[tool]` attribute of toolwright. Use it through the `toolwright` crate.
//!
//! It keeps the function as written and adds a unit struct `<CamelName>Tool` implementing
//! `toolwright::Tool`: the name, the description (the doc comment up to its first heading) and
//! the per-argument descriptions (the `# Arguments` list, or `#[arg(description = ...)]`) go into
//! a JSON Schema 2020-12 generated with schemars from a hidden argument struct.
//!
//! When the return type (`T`, or `T` of `Result<T, E>`) implements `JsonSchema` and is an
//! object schema, its schema becomes `ToolSpec::output_schema` (listed by the MCP server as
//! `outputSchema`); other return types, and `Outcome`, give none. The macro cannot see trait
//! impls, so the generated code asks the compiler (autoref specialization on a probe type).
//!
//! A missing doc comment or an undocumented parameter is a compile error pointing at it: the
//! model only knows what the descriptions tell it.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, FnArg, Ident, ItemFn, Lit, LitStr, Pat, ReturnType, Type};

/// Turns a documented function into a tool. See the `toolwright` crate for the full reference.
///
/// Attribute keys: `name`, `display_label`, `timeout_ms`, `atomic`, `side_effects`
/// (`"none" | "read" | "write" | "destructive"`), `idempotent`, `max_retries`, `fallback`,
/// `requires_confirmation`, `category`, `version`, `owner`, `sla_ms`, `examples` (JSON object
/// strings), `output_limit_bytes`, `dependencies`, `preview` (a
/// `fn(&serde_json::Value) -> serde_json::Value` describing what a call would do, shown by the
/// confirmation gate), `lint_allow` (lint rule ids allowed for this tool, e.g. `["TW002"]`).
///
/// Parameter attribute `#[arg(...)]`: `description`, `default`, `min`, `max`, `min_length`,
/// `max_length`, `pattern`, `validate` (a `fn(&T) -> Result<(), ToolError>`). `#[schemars(...)]`
/// and `#[serde(...)]` on a parameter are passed to the generated field.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand(attr.into(), item.into()) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

#[derive(Default)]
struct ToolAttrs {
    name: Option<LitStr>,
    display_label: Option<LitStr>,
    timeout_ms: Option<syn::LitInt>,
    atomic: bool,
    side_effects: Option<LitStr>,
    idempotent: bool,
    max_retries: Option<syn::LitInt>,
    fallback: Option<LitStr>,
    requires_confirmation: bool,
    category: Option<LitStr>,
    version: Option<LitStr>,
    owner: Option<LitStr>,
    sla_ms: Option<syn::LitInt>,
    examples: Vec<LitStr>,
    output_limit_bytes: Option<syn::LitInt>,
    dependencies: Vec<LitStr>,
    preview: Option<syn::Path>,
    lint_allow: Vec<LitStr>,
    /// `crate = "path"`: where the `toolwright` facade is, for crates that re-export it.
    krate: Option<syn::Path>,
}

fn lit_bool(meta: &syn::meta::ParseNestedMeta) -> syn::Result<bool> {
    if meta.input.peek(syn::Token![=]) {
        let b: syn::LitBool = meta.value()?.parse()?;
        Ok(b.value)
    } else {
        Ok(true)
    }
}

fn lit_strs(meta: &syn::meta::ParseNestedMeta) -> syn::Result<Vec<LitStr>> {
    let v = meta.value()?;
    if v.peek(syn::token::Bracket) {
        let content;
        syn::bracketed!(content in v);
        let items = content.parse_terminated(|p| p.parse::<LitStr>(), syn::Token![,])?;
        Ok(items.into_iter().collect())
    } else {
        Ok(vec![v.parse()?])
    }
}

impl ToolAttrs {
    fn parse(attr: TokenStream2) -> syn::Result<Self> {
        let mut a = ToolAttrs::default();
        let parser = syn::meta::parser(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            match key.as_str() {
                "name" => a.name = Some(meta.value()?.parse()?),
                "display_label" => a.display_label = Some(meta.value()?.parse()?),
                "timeout_ms" => a.timeout_ms = Some(meta.value()?.parse()?),
                "atomic" => a.atomic = lit_bool(&meta)?,
                "side_effects" => {
                    let s: LitStr = meta.value()?.parse()?;
                    if !["none", "read", "write", "destructive"].contains(&s.value().as_str()) {
                        return Err(syn::Error::new(
                            s.span(),
                            "side_effects must be \"none\", \"read\", \"write\" or \"destructive\"",
                        ));
                    }
                    a.side_effects = Some(s);
                }
                "idempotent" => a.idempotent = lit_bool(&meta)?,
                "max_retries" => a.max_retries = Some(meta.value()?.parse()?),
                "fallback" => a.fallback = Some(meta.value()?.parse()?),
                "requires_confirmation" => a.requires_confirmation = lit_bool(&meta)?,
                "category" => a.category = Some(meta.value()?.parse()?),
                "version" => a.version = Some(meta.value()?.parse()?),
                "owner" => a.owner = Some(meta.value()?.parse()?),
                "sla_ms" => a.sla_ms = Some(meta.value()?.parse()?),
                "output_limit_bytes" => a.output_limit_bytes = Some(meta.value()?.parse()?),
                "examples" => {
                    for s in lit_strs(&meta)? {
                        match serde_json::from_str::<serde_json::Value>(&s.value()) {
                            Ok(v) if v.is_object() => a.examples.push(s),
                            _ => {
                                return Err(syn::Error::new(
                                    s.span(),
                                    "each example must be a JSON object of arguments",
                                ));
                            }
                        }
                    }
                }
                "dependencies" => a.dependencies = lit_strs(&meta)?,
                "preview" => a.preview = Some(meta.value()?.parse()?),
                "lint_allow" => a.lint_allow = lit_strs(&meta)?,
                "crate" => {
                    let v = meta.value()?;
                    a.krate = Some(if v.peek(LitStr) {
                        v.parse::<LitStr>()?.parse()?
                    } else {
                        v.parse()?
                    });
                }
                _ => {
                    return Err(meta.error(
                        "unknown #[tool] key; expected one of: name, display_label, timeout_ms, \
                         atomic, side_effects, idempotent, max_retries, fallback, \
                         requires_confirmation, category, version, owner, sla_ms, examples, \
                         output_limit_bytes, dependencies, preview, lint_allow",
                    ));
                }
            }
            Ok(())
        });
        syn::parse::Parser::parse2(parser, attr)?;
        Ok(a)
    }
}

#[derive(Default)]
struct ArgAttrs {
    description: Option<LitStr>,
    default: Option<Expr>,
    min: Option<Expr>,
    max: Option<Expr>,
    min_length: Option<Expr>,
    max_length: Option<Expr>,
    pattern: Option<LitStr>,
    validate: Option<syn::Path>,
}

struct Param {
    ident: Ident,
    ty: Type,
    attrs: ArgAttrs,
    passthrough: Vec<syn::Attribute>,
    doc: Option<String>,
    span: Span,
}

enum Input {
    Param(Box<Param>),
    Context {
        by_ref: bool,
    },
    /// A `State<T>` parameter: filled from the registry's state, not from the arguments.
    State(Box<Type>),
}

/// Whether `ty` is `State<T>` (any path ending in `State` with one type argument).
fn is_state(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p.path.segments.last().is_some_and(|s| {
            s.ident == "State" && matches!(s.arguments, syn::PathArguments::AngleBracketed(_))
        }),
        _ => false,
    }
}

fn is_context(ty: &Type) -> Option<bool> {
    let (ty, by_ref) = match ty {
        Type::Reference(r) => (&*r.elem, true),
        t => (t, false),
    };
    match ty {
        Type::Path(p)
            if p.path
                .segments
                .last()
                .is_some_and(|s| s.ident == "ToolContext") =>
        {
            Some(by_ref)
        }
        _ => None,
    }
}

fn last_ident(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// Whether the type is a plain named type that could be a user struct (candidate for flattening).
fn maybe_struct(ty: &Type) -> bool {
    const STD: &[&str] = &[
        "String", "bool", "char", "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8",
        "u16", "u32", "u64", "u128", "usize", "Vec", "Option", "HashMap", "BTreeMap", "HashSet",
        "BTreeSet", "Value", "Box", "PathBuf",
    ];
    match last_ident(ty) {
        Some(id) => !STD.contains(&id.as_str()),
        None => false,
    }
}

fn parse_inputs(func: &ItemFn) -> syn::Result<Vec<Input>> {
    let mut out = Vec::new();
    for input in &func.sig.inputs {
        let pt = match input {
            FnArg::Receiver(r) => {
                return Err(syn::Error::new_spanned(
                    r,
                    "#[tool] works on free functions; `self` is not supported",
                ));
            }
            FnArg::Typed(pt) => pt,
        };
        if let Some(by_ref) = is_context(&pt.ty) {
            out.push(Input::Context { by_ref });
            continue;
        }
        if is_state(&pt.ty) {
            out.push(Input::State(pt.ty.clone()));
            continue;
        }
        let ident = match &*pt.pat {
            Pat::Ident(pi) => pi.ident.clone(),
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    "#[tool] parameters must be plain identifiers (they become argument names)",
                ));
            }
        };
        if let Type::Reference(r) = &*pt.ty {
            return Err(syn::Error::new_spanned(
                r,
                "#[tool] parameters must be owned types (use String instead of &str)",
            ));
        }
        let mut attrs = ArgAttrs::default();
        let mut passthrough = Vec::new();
        let mut doc = Vec::new();
        for a in &pt.attrs {
            if a.path().is_ident("arg") {
                a.parse_nested_meta(|meta| {
                    let key = meta
                        .path
                        .get_ident()
                        .map(|i| i.to_string())
                        .unwrap_or_default();
                    match key.as_str() {
                        "description" => attrs.description = Some(meta.value()?.parse()?),
                        "default" => attrs.default = Some(meta.value()?.parse()?),
                        "min" => attrs.min = Some(meta.value()?.parse()?),
                        "max" => attrs.max = Some(meta.value()?.parse()?),
                        "min_length" => attrs.min_length = Some(meta.value()?.parse()?),
                        "max_length" => attrs.max_length = Some(meta.value()?.parse()?),
                        "pattern" => attrs.pattern = Some(meta.value()?.parse()?),
                        "validate" => attrs.validate = Some(meta.value()?.parse()?),
                        _ => {
                            return Err(meta.error(
                                "unknown #[arg] key; expected one of: description, default, min, \
                                 max, min_length, max_length, pattern, validate",
                            ));
                        }
                    }
                    Ok(())
                })?;
            } else if a.path().is_ident("schemars") || a.path().is_ident("serde") {
                passthrough.push(a.clone());
            } else if a.path().is_ident("doc") {
                if let Some(s) = doc_str(a) {
                    doc.push(s.trim().to_string());
                }
            } else {
                return Err(syn::Error::new_spanned(
                    a,
                    "unsupported attribute on a #[tool] parameter; use #[arg(...)], \
                     #[schemars(...)] or #[serde(...)]",
                ));
            }
        }
        out.push(Input::Param(Box::new(Param {
            span: pt.span(),
            ident,
            ty: (*pt.ty).clone(),
            attrs,
            passthrough,
            doc: (!doc.is_empty()).then(|| doc.join(" ")),
        })));
    }
    Ok(out)
}

/// The text of a `#[doc = "..."]` attribute.
fn doc_str(a: &syn::Attribute) -> Option<String> {
    match &a.meta {
        syn::Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

struct Docs {
    description: String,
    args: Vec<(String, String)>,
}

fn parse_docs(attrs: &[syn::Attribute]) -> Docs {
    let mut lines = Vec::new();
    for a in attrs {
        if !a.path().is_ident("doc") {
            continue;
        }
        if let Some(v) = doc_str(a) {
            if v.trim().is_empty() {
                lines.push(String::new());
            }
            for l in v.lines() {
                lines.push(l.strip_prefix(' ').unwrap_or(l).to_string());
            }
        }
    }
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut args: Vec<(String, String)> = Vec::new();
    let mut section: Option<String> = None;
    let mut in_code = false;
    for line in &lines {
        let t = line.trim();
        if t.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        if let Some(h) = t.strip_prefix('#') {
            section = Some(h.trim_start_matches('#').trim().to_lowercase());
            continue;
        }
        match section.as_deref() {
            None => {
                if t.is_empty() {
                    if !current.is_empty() {
                        paragraphs.push(std::mem::take(&mut current));
                    }
                } else {
                    if !current.is_empty() {
                        current.push(' ');
                    }
                    current.push_str(t);
                }
            }
            Some("arguments" | "args" | "parameters" | "params") => {
                let item = t.strip_prefix("* ").or_else(|| t.strip_prefix("- "));
                match item {
                    Some(rest) => {
                        let rest = rest.trim();
                        let (name, desc) = split_arg_item(rest);
                        if !name.is_empty() {
                            args.push((name, desc));
                        }
                    }
                    None if !t.is_empty() => {
                        if let Some((_, d)) = args.last_mut() {
                            if !d.is_empty() {
                                d.push(' ');
                            }
                            d.push_str(t);
                        }
                    }
                    None => {}
                }
            }
            Some(_) => {}
        }
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    Docs {
        description: paragraphs.join("\n\n"),
        args,
    }
}

/// `` `name` - desc ``, `` `name`: desc ``, `name - desc` or `name: desc`.
fn split_arg_item(rest: &str) -> (String, String) {
    let (name, tail) = if let Some(r) = rest.strip_prefix('`') {
        match r.split_once('`') {
            Some((n, t)) => (n.to_string(), t),
            None => return (String::new(), String::new()),
        }
    } else {
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        (
            rest.get(..end).unwrap_or("").to_string(),
            rest.get(end..).unwrap_or(""),
        )
    };
    let desc = tail
        .trim_start()
        .trim_start_matches(['-', ':', '—', '–'])
        .trim()
        .to_string();
    (name, desc)
}

/// The type whose schema is the tool's output schema: `T` of `-> T` or `-> Result<T, E>`.
/// None for `()`, an `Outcome` (its `data` has no fixed shape) and a type naming `impl Trait`
/// (it cannot be named in the probe); whether `T` implements `JsonSchema` is decided at
/// compile time of the generated code (`OutputProbe`).
fn output_type(output: &ReturnType) -> Option<Type> {
    let ReturnType::Type(_, ty) = output else {
        return None;
    };
    let ty: &Type = ty;
    let inner = match ty {
        Type::Path(tp) => match tp.path.segments.last() {
            Some(seg) if seg.ident == "Result" => match &seg.arguments {
                syn::PathArguments::AngleBracketed(ab) => match ab.args.first() {
                    Some(syn::GenericArgument::Type(t)) => t,
                    _ => return None,
                },
                _ => return None,
            },
            _ => ty,
        },
        _ => ty,
    };
    let unit = matches!(inner, Type::Tuple(t) if t.elems.is_empty());
    if unit || last_ident(inner).as_deref() == Some("Outcome") || names_impl(quote!(#inner)) {
        return None;
    }
    Some(inner.clone())
}

/// Whether the tokens hold the `impl` keyword (an `impl Trait` type).
fn names_impl(ts: TokenStream2) -> bool {
    ts.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(id) => id == "impl",
        proc_macro2::TokenTree::Group(g) => names_impl(g.stream()),
        _ => false,
    })
}

fn camel(name: &str) -> String {
    name.split('_')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let mut c = s.chars();
            match c.next() {
                Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

fn opt_str(v: &Option<LitStr>) -> TokenStream2 {
    match v {
        Some(s) => quote!(::core::option::Option::Some(::std::string::String::from(#s))),
        None => quote!(::core::option::Option::None),
    }
}

fn opt_int(v: &Option<syn::LitInt>) -> TokenStream2 {
    match v {
        Some(i) => quote!(::core::option::Option::Some(#i)),
        None => quote!(::core::option::Option::None),
    }
}

/// Replaces every leading `::toolwright` path in `ts` by `krate` (for `#[tool(crate = ...)]`).
fn rewrite_crate(ts: TokenStream2, krate: &syn::Path) -> TokenStream2 {
    use proc_macro2::{Group, Spacing, TokenTree};
    let trees: Vec<TokenTree> = ts.into_iter().collect();
    let mut out = TokenStream2::new();
    let mut i = 0;
    while let Some(tree) = trees.get(i) {
        let leading = match trees.get(i..).and_then(|rest| rest.get(..3)) {
            Some(
                [
                    TokenTree::Punct(a),
                    TokenTree::Punct(b),
                    TokenTree::Ident(id),
                ],
            ) => {
                a.as_char() == ':'
                    && a.spacing() == Spacing::Joint
                    && b.as_char() == ':'
                    && id == "toolwright"
                    && !matches!(
                        i.checked_sub(1).and_then(|p| trees.get(p)),
                        Some(TokenTree::Ident(prev)) if prev != "use"
                    )
            }
            _ => false,
        };
        if leading {
            out.extend(quote!(#krate));
            i += 3;
            continue;
        }
        match tree {
            TokenTree::Group(g) => {
                let mut ng = Group::new(g.delimiter(), rewrite_crate(g.stream(), krate));
                ng.set_span(g.span());
                out.extend([TokenTree::Group(ng)]);
            }
            t => out.extend([t.clone()]),
        }
        i += 1;
    }
    out
}

/// How a parameter's type is checked on the raw-JSON path (`Tool::call_json`), or `None` when a
/// tool with it does not take raw JSON.
fn raw_kind(ty: &Type) -> Option<TokenStream2> {
    let Type::Path(p) = ty else {
        return None;
    };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    if !matches!(last.arguments, syn::PathArguments::None) {
        return None;
    }
    let kind = match last.ident.to_string().as_str() {
        "String" => quote!(Str),
        "bool" => quote!(Bool),
        "i8" | "i16" | "i32" | "i64" | "isize" | "u8" | "u16" | "u32" | "u64" | "usize" => {
            quote!(Int)
        }
        "f64" => quote!(Float),
        // Types whose schema or deserialization the typed checks do not model.
        "f32" | "char" | "i128" | "u128" | "Value" | "PathBuf" | "State" | "ToolContext" => {
            return None;
        }
        // A named type: taken when its schema is a string enumeration (checked at run time).
        _ => quote!(Other),
    };
    Some(quote!(::toolwright::__private::ParamKind::#kind))
}

/// The raw-JSON path of a `#[tool]` (see `Tool::call_json`): its items (a deserialization
/// struct and helpers) and the trait methods, or nothing when some parameter is not one whose
/// constraints are checked exactly on its typed value.
fn raw_path(
    params: &[&Param],
    single_struct: bool,
    fn_ident: &Ident,
    struct_ident: &Ident,
    args_ident: &Ident,
) -> (TokenStream2, TokenStream2) {
    let eligible = !single_struct
        && params.iter().all(|p| {
            p.attrs.validate.is_none()
                && p.passthrough.is_empty()
                && !p.ident.to_string().starts_with("r#")
                && raw_kind(&p.ty).is_some()
        });
    if !eligible {
        return (quote!(), quote!());
    }
    let raw_ident = format_ident!("__ToolwrightRaw_{}", fn_ident);
    let mut fields = Vec::new();
    let mut decls = Vec::new();
    let mut checks = Vec::new();
    let mut helpers = Vec::new();
    for (i, p) in params.iter().enumerate() {
        let (ident, ty) = (&p.ident, &p.ty);
        let name = ident.to_string();
        let kind = raw_kind(ty).unwrap_or_default();
        let has_default = p.attrs.default.is_some();
        decls.push(quote! {
            ::toolwright::__private::ParamDecl { name: #name, kind: #kind, has_default: #has_default }
        });
        let mut attrs = Vec::new();
        if has_default {
            let def_fn = format_ident!("__toolwright_default_{}_{}", fn_ident, ident).to_string();
            attrs.push(quote!(#[serde(default = #def_fn)]));
        }
        match last_ident(ty).as_deref() {
            Some("String") => checks.push(quote!(plan.check_str(#i, &raw.#ident))),
            Some("f64") => checks.push(quote!(plan.check_float(#i, raw.#ident))),
            Some("bool") => {}
            Some(
                "i8" | "i16" | "i32" | "i64" | "isize" | "u8" | "u16" | "u32" | "u64" | "usize",
            ) => checks.push(quote!(plan.check_int(#i, raw.#ident as i128))),
            _ => {
                let de = format_ident!("__toolwright_raw_de_{}_{}", fn_ident, ident);
                let de_str = de.to_string();
                attrs.push(quote!(#[serde(deserialize_with = #de_str)]));
                helpers.push(quote! {
                    #[doc(hidden)]
                    #[allow(non_snake_case)]
                    fn #de<'de, D>(d: D) -> ::core::result::Result<#ty, D::Error>
                    where
                        D: ::toolwright::__private::serde::Deserializer<'de>,
                    {
                        let allowed = #struct_ident::__toolwright_raw_plan()
                            .map_or(&[][..], |p| p.allowed(#i));
                        ::toolwright::__private::enum_from_str::<#ty, D>(d, allowed)
                    }
                });
            }
        }
        fields.push(quote!(#(#attrs)* #ident: #ty));
    }
    let idents: Vec<&Ident> = params.iter().map(|p| &p.ident).collect();
    let items = quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #[derive(::toolwright::__private::serde::Deserialize)]
        #[serde(crate = "::toolwright::__private::serde", deny_unknown_fields)]
        struct #raw_ident {
            #(#fields,)*
        }

        #(#helpers)*

        impl #struct_ident {
            fn __toolwright_raw_plan() -> ::core::option::Option<&'static ::toolwright::__private::RawPlan> {
                static PLAN: ::std::sync::OnceLock<::core::option::Option<::toolwright::__private::RawPlan>> =
                    ::std::sync::OnceLock::new();
                PLAN.get_or_init(|| {
                    ::toolwright::__private::RawPlan::new(
                        &Self::__toolwright_spec().0.parameters,
                        &[#(#decls),*],
                    )
                })
                .as_ref()
            }
        }
    };
    let methods = quote! {
        fn takes_json(&self) -> bool {
            Self::__toolwright_raw_plan().is_some()
        }

        #[allow(clippy::cast_lossless, unused_variables)]
        fn call_json(
            &self,
            args: &str,
            ctx: ::toolwright::ToolContext,
        ) -> ::core::option::Option<::toolwright::ToolFuture> {
            let plan = Self::__toolwright_raw_plan()?;
            if !::toolwright::__private::is_object_text(args) {
                return ::core::option::Option::None;
            }
            let raw: #raw_ident = ::toolwright::__private::serde_json::from_str(args).ok()?;
            if !(true #(&& #checks)*) {
                return ::core::option::Option::None;
            }
            let parsed = #args_ident { #(#idents: raw.#idents),* };
            ::core::option::Option::Some(Self::__toolwright_run(
                ::core::result::Result::Ok(parsed),
                ::core::option::Option::None,
                ctx,
            ))
        }
    };
    (items, methods)
}

fn expand(attr: TokenStream2, item: TokenStream2) -> syn::Result<TokenStream2> {
    let attrs = ToolAttrs::parse(attr)?;
    let krate = attrs.krate.clone();
    let out = expand_with(attrs, item)?;
    Ok(match krate {
        Some(k) => rewrite_crate(out, &k),
        None => out,
    })
}

/// Expands `#[tool]` on `item` with the attribute's keys `attrs`: the function as written, its
/// hidden argument struct (and default-value helpers, and the raw-JSON path when it applies),
/// the `<CamelName>Tool` unit struct and its `toolwright::Tool` impl.
fn expand_with(attrs: ToolAttrs, item: TokenStream2) -> syn::Result<TokenStream2> {
    let (func, inputs) = parse_tool_fn(item)?;
    let fn_ident = func.sig.ident.clone();
    let tool_name = attrs
        .name
        .as_ref()
        .map(LitStr::value)
        .unwrap_or_else(|| fn_ident.to_string());
    let docs = tool_docs(&func, &fn_ident, &tool_name)?;

    let params: Vec<&Param> = inputs
        .iter()
        .filter_map(|i| match i {
            Input::Param(p) => Some(p.as_ref()),
            Input::Context { .. } | Input::State(_) => None,
        })
        .collect();
    let single = params.len() == 1;
    let single_struct = single && params.iter().all(|p| maybe_struct(&p.ty));
    let (fields, extra_items) = arg_fields(&params, &docs, &fn_ident, &tool_name, single_struct)?;

    let vis = &func.vis;
    let struct_ident = format_ident!("{}Tool", camel(&fn_ident.to_string()));
    let args_ident = format_ident!("__ToolwrightArgs_{}", fn_ident);
    let spec_fn = spec_fn(
        &attrs,
        &func.sig.output,
        &tool_name,
        &docs.description,
        &args_ident,
        single_struct,
    );
    let run_fn = run_fn(&func, &inputs, &params, &args_ident, &tool_name);
    let struct_doc = format!("The `{tool_name}` tool, generated by `#[tool]` from [`{fn_ident}`].");
    let (raw_items, raw_methods) = raw_path(
        &params,
        single_struct,
        &fn_ident,
        &struct_ident,
        &args_ident,
    );
    let tool_impl = tool_impl(
        &attrs,
        &inputs,
        &struct_ident,
        call_methods(&params, single, &args_ident),
        raw_methods,
    );

    Ok(quote! {
        #func

        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #[derive(::toolwright::__private::serde::Deserialize, ::toolwright::__private::schemars::JsonSchema)]
        #[serde(crate = "::toolwright::__private::serde", deny_unknown_fields)]
        #[schemars(crate = "::toolwright::__private::schemars")]
        struct #args_ident {
            #(#fields,)*
        }

        #(#extra_items)*

        #raw_items

        #[doc = #struct_doc]
        #[derive(Debug, Clone, Copy, Default)]
        #vis struct #struct_ident;

        impl #struct_ident {
            #spec_fn

            #run_fn
        }

        #tool_impl
    })
}

/// Parses the `#[tool]` function and its inputs, rejecting a generic one, and strips the
/// parameter attributes from the function that is emitted.
fn parse_tool_fn(item: TokenStream2) -> syn::Result<(ItemFn, Vec<Input>)> {
    let mut func: ItemFn = syn::parse2(item)?;
    if !func.sig.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &func.sig.generics,
            "#[tool] functions cannot be generic: the schema must be known",
        ));
    }
    let inputs = parse_inputs(&func)?;
    // Strip parameter attributes: they were for us.
    for input in func.sig.inputs.iter_mut() {
        if let FnArg::Typed(pt) = input {
            pt.attrs.clear();
        }
    }
    Ok((func, inputs))
}

/// The function's doc comment, or an error at its name when it says nothing: the description
/// is all the model knows of the tool.
fn tool_docs(func: &ItemFn, fn_ident: &Ident, tool_name: &str) -> syn::Result<Docs> {
    let docs = parse_docs(&func.attrs);
    if docs.description.trim().is_empty() {
        return Err(syn::Error::new(
            fn_ident.span(),
            format!(
                "#[tool] `{tool_name}` has no doc comment: write what the tool does and when to \
                 use it (\"Use this when ...\"); it is the description the model reads"
            ),
        ));
    }
    Ok(docs)
}

/// The fields of the argument struct, one per parameter, and the items they need (the
/// functions giving `#[arg(default = ...)]` values); an undocumented parameter is an error,
/// except the single struct parameter (its fields carry their own descriptions).
fn arg_fields(
    params: &[&Param],
    docs: &Docs,
    fn_ident: &Ident,
    tool_name: &str,
    single_struct: bool,
) -> syn::Result<(Vec<TokenStream2>, Vec<TokenStream2>)> {
    // Per-parameter descriptions and field definitions.
    let mut fields = Vec::new();
    let mut extra_items = Vec::new();
    for p in params {
        let name = p.ident.to_string();
        let desc = param_description(p, docs);
        if desc.is_none() && !single_struct {
            return Err(syn::Error::new(
                p.span,
                format!(
                    "parameter `{name}` of #[tool] `{tool_name}` is undocumented: add \
                     \"* `{name}` - ...\" under a `# Arguments` heading in the doc comment, or \
                     #[arg(description = \"...\")]"
                ),
            ));
        }
        let (field, default_fn) = arg_field(p, desc.as_deref(), fn_ident);
        extra_items.extend(default_fn);
        fields.push(field);
    }
    Ok((fields, extra_items))
}

/// A parameter's description: `#[arg(description = ...)]`, else its own doc comment, else its
/// item in the function's `# Arguments` list; `None` when that is missing or blank.
fn param_description(p: &Param, docs: &Docs) -> Option<String> {
    let name = p.ident.to_string();
    p.attrs
        .description
        .as_ref()
        .map(LitStr::value)
        .or_else(|| p.doc.clone())
        .or_else(|| {
            docs.args
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, d)| d.clone())
        })
        .filter(|d| !d.trim().is_empty())
}

/// One field of the argument struct: its description, default, schema constraints and the
/// passed-through `#[schemars]`/`#[serde]` attributes; with the function giving its default
/// value when it has `#[arg(default = ...)]`.
fn arg_field(
    p: &Param,
    desc: Option<&str>,
    fn_ident: &Ident,
) -> (TokenStream2, Option<TokenStream2>) {
    let ident = &p.ident;
    let ty = &p.ty;
    let mut field_attrs = Vec::new();
    let mut default_fn = None;
    if let Some(d) = desc {
        field_attrs.push(quote!(#[doc = #d]));
    }
    if let Some(def) = &p.attrs.default {
        let def_fn = format_ident!("__toolwright_default_{}_{}", fn_ident, ident);
        let def_fn_str = def_fn.to_string();
        let value = match def {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) => quote!(::core::convert::Into::into(#s)),
            other => quote!(#other),
        };
        default_fn = Some(quote! {
            #[doc(hidden)]
            #[allow(non_snake_case, clippy::unnecessary_fallible_conversions)]
            fn #def_fn() -> #ty { #value }
        });
        field_attrs.push(quote!(#[serde(default = #def_fn_str)]));
    }
    field_attrs.extend(constraint_attrs(&p.attrs));
    let pass = &p.passthrough;
    let field = quote! {
        #(#field_attrs)*
        #(#pass)*
        #ident: #ty
    };
    (field, default_fn)
}

/// The `#[schemars(...)]` attributes for a parameter's `min`/`max`, `min_length`/`max_length`
/// and `pattern` keys, in that order.
fn constraint_attrs(attrs: &ArgAttrs) -> Vec<TokenStream2> {
    let mut field_attrs = Vec::new();
    match (&attrs.min, &attrs.max) {
        (Some(a), Some(b)) => field_attrs.push(quote!(#[schemars(range(min = #a, max = #b))])),
        (Some(a), None) => field_attrs.push(quote!(#[schemars(range(min = #a))])),
        (None, Some(b)) => field_attrs.push(quote!(#[schemars(range(max = #b))])),
        (None, None) => {}
    }
    match (&attrs.min_length, &attrs.max_length) {
        (Some(a), Some(b)) => field_attrs.push(quote!(#[schemars(length(min = #a, max = #b))])),
        (Some(a), None) => field_attrs.push(quote!(#[schemars(length(min = #a))])),
        (None, Some(b)) => field_attrs.push(quote!(#[schemars(length(max = #b))])),
        (None, None) => {}
    }
    if let Some(pat) = &attrs.pattern {
        field_attrs.push(quote!(#[schemars(regex(pattern = #pat))]));
    }
    field_attrs
}

/// The `__toolwright_spec` function: the tool's `ToolSpec`, built once, and whether the
/// single struct parameter was flattened into the top-level arguments.
fn spec_fn(
    attrs: &ToolAttrs,
    output: &ReturnType,
    tool_name: &str,
    description: &str,
    args_ident: &Ident,
    single_struct: bool,
) -> TokenStream2 {
    let meta = tool_meta(attrs);
    let output_schema = output_schema_expr(output);
    quote! {
        fn __toolwright_spec() -> &'static (::toolwright::ToolSpec, bool) {
            static SPEC: ::std::sync::OnceLock<(::toolwright::ToolSpec, bool)> =
                ::std::sync::OnceLock::new();
            SPEC.get_or_init(|| {
                let (parameters, flat) =
                    ::toolwright::__private::params_schema::<#args_ident>(#single_struct);
                let meta = #meta;
                let output_schema: ::core::option::Option<::toolwright::__private::serde_json::Value> =
                    #output_schema;
                let spec = ::toolwright::ToolSpec::new(#tool_name, #description, parameters)
                    .with_meta(meta)
                    .with_output_schema(output_schema);
                (spec, flat)
            })
        }
    }
}

/// The `ToolMeta` value built from the attribute's keys.
fn tool_meta(attrs: &ToolAttrs) -> TokenStream2 {
    let side_effects = match attrs.side_effects.as_ref().map(LitStr::value).as_deref() {
        Some("none") => quote!(::toolwright::SideEffects::None),
        Some("read") => quote!(::toolwright::SideEffects::Read),
        Some("destructive") => quote!(::toolwright::SideEffects::Destructive),
        _ => quote!(::toolwright::SideEffects::Write),
    };
    let display_label = opt_str(&attrs.display_label);
    let timeout_ms = opt_int(&attrs.timeout_ms);
    let atomic = attrs.atomic;
    let idempotent = attrs.idempotent;
    let max_retries = opt_int(&attrs.max_retries);
    let fallback = opt_str(&attrs.fallback);
    let requires_confirmation = attrs.requires_confirmation;
    let category = opt_str(&attrs.category);
    let version = opt_str(&attrs.version);
    let owner = opt_str(&attrs.owner);
    let sla_ms = opt_int(&attrs.sla_ms);
    let output_limit = opt_int(&attrs.output_limit_bytes);
    let examples = &attrs.examples;
    let dependencies = &attrs.dependencies;
    let lint_allow = &attrs.lint_allow;
    quote! {
        ::toolwright::ToolMeta {
            display_label: #display_label,
            timeout_ms: #timeout_ms,
            atomic: #atomic,
            side_effects: #side_effects,
            idempotent: #idempotent,
            max_retries: #max_retries,
            fallback: #fallback,
            requires_confirmation: #requires_confirmation,
            category: #category,
            server: ::std::option::Option::None,
            version: #version,
            owner: #owner,
            sla_ms: #sla_ms,
            examples: ::std::vec![#(
                ::toolwright::__private::serde_json::from_str(#examples)
                    .unwrap_or(::toolwright::__private::serde_json::Value::Null)
            ),*],
            output_limit_bytes: #output_limit,
            dependencies: ::std::vec![#(::std::string::String::from(#dependencies)),*],
            lint_allow: ::std::vec![#(::std::string::String::from(#lint_allow)),*],
            rate_limit: ::std::option::Option::None,
        }
    }
}

/// The tool's output schema expression: asked of the compiler for the return type (see
/// `output_type`), or `None`.
fn output_schema_expr(output: &ReturnType) -> TokenStream2 {
    match output_type(output) {
        Some(ty) => quote! {
            {
                #[allow(unused_imports)]
                use ::toolwright::__private::{OutputUntyped as _, OutputViaSchema as _};
                (&::toolwright::__private::OutputProbe::<#ty>::new()).output_schema()
            }
        },
        None => quote!(::core::option::Option::None),
    }
}

/// The `__toolwright_run` function: from the parsed arguments, runs the validators, takes the
/// state parameters from the context, calls the function and converts what it returns.
fn run_fn(
    func: &ItemFn,
    inputs: &[Input],
    params: &[&Param],
    args_ident: &Ident,
    tool_name: &str,
) -> TokenStream2 {
    let run_validators = run_validators(params);
    let field_idents: Vec<&Ident> = params.iter().map(|p| &p.ident).collect();
    let state_bindings = state_bindings(inputs);
    let invoke = invoke_fn(func, inputs, tool_name);
    let convert = convert_return(&func.sig.output);
    let uses_ctx = inputs.iter().any(|i| matches!(i, Input::Context { .. }));
    let ctx_binding = if uses_ctx {
        quote!()
    } else {
        quote!(let _ = ctx;)
    };
    quote! {
        #[allow(unused_variables)]
        fn __toolwright_run(
            parsed: ::core::result::Result<#args_ident, ::toolwright::__private::serde_json::Error>,
            raw: ::core::option::Option<
                ::std::sync::Arc<::toolwright::__private::serde_json::Value>>,
            ctx: ::toolwright::ToolContext,
        ) -> ::toolwright::ToolFuture {
            let parsed = parsed.map_err(::toolwright::__private::deserialize_failure);
            ::std::boxed::Box::pin(async move {
                let parsed = parsed?;
                #run_validators
                #(#state_bindings)*
                #ctx_binding
                let #args_ident { #(#field_idents),* } = parsed;
                #invoke
                #convert
            })
        }
    }
}

/// The `#[arg(validate = ...)]` checks of the parsed arguments: every failure is collected and
/// reported together as a validation error. Empty when no parameter has a validator.
fn run_validators(params: &[&Param]) -> TokenStream2 {
    let has_validators = params.iter().any(|p| p.attrs.validate.is_some());
    let validators: Vec<TokenStream2> = params
        .iter()
        .filter_map(|p| {
            let v = p.attrs.validate.as_ref()?;
            let ident = &p.ident;
            let name = ident.to_string();
            Some(quote_spanned! {v.span()=>
                if let ::core::result::Result::Err(e) = #v(&parsed.#ident) {
                    failures.push(::toolwright::__private::validator_failure(
                        #name, raw.as_ref().and_then(|r| r.get(#name)).cloned(), e));
                }
            })
        })
        .collect();
    if has_validators {
        quote! {
            let mut failures: ::std::vec::Vec<::toolwright::FieldError> = ::std::vec::Vec::new();
            #(#validators)*
            if !failures.is_empty() {
                return ::core::result::Result::Err(
                    ::toolwright::validation_error_from_fields(failures));
            }
        }
    } else {
        quote!()
    }
}

/// The local variable holding the `State` parameter at position `i` of the function's inputs.
fn state_ident(i: usize) -> Ident {
    format_ident!("__toolwright_state_{}", i)
}

/// The bindings of the `State` parameters, each taken from the call's context.
fn state_bindings(inputs: &[Input]) -> Vec<TokenStream2> {
    // State parameters are taken from the call's registry before the function runs.
    inputs
        .iter()
        .enumerate()
        .filter_map(|(n, i)| match i {
            Input::State(ty) => {
                let id = state_ident(n);
                Some(quote!(let #id: #ty = <#ty>::from_context(&ctx)?;))
            }
            _ => None,
        })
        .collect()
}

/// The call of the function, bound to `ret`: awaited when it is async, else run on the
/// blocking pool.
fn invoke_fn(func: &ItemFn, inputs: &[Input], tool_name: &str) -> TokenStream2 {
    let fn_ident = &func.sig.ident;
    let call_args: Vec<TokenStream2> = inputs
        .iter()
        .enumerate()
        .map(|(n, i)| match i {
            Input::Param(p) => {
                let id = &p.ident;
                quote!(#id)
            }
            Input::Context { by_ref: true } => quote!(&ctx),
            Input::Context { by_ref: false } => quote!(ctx.clone()),
            Input::State(_) => {
                let id = state_ident(n);
                quote!(#id)
            }
        })
        .collect();
    if func.sig.asyncness.is_some() {
        quote!(let ret = #fn_ident(#(#call_args),*).await;)
    } else {
        quote! {
            // Bounded: a body that never returns holds one of its tool's permits, not the pool.
            let ret = match ::toolwright::__private::run_blocking(#tool_name, move || {
                #fn_ident(#(#call_args),*)
            }).await {
                ::core::result::Result::Ok(r) => r,
                ::core::result::Result::Err(e) => return ::core::result::Result::Err(e),
            };
        }
    }
}

/// Whether the return type is a `Result`, and whether what it returns on success (the `Ok`
/// type, or the type itself) is an `Outcome`.
fn return_shape(output: &ReturnType) -> (bool, bool) {
    match output {
        ReturnType::Default => (false, false),
        ReturnType::Type(_, ty) => match &**ty {
            Type::Path(tp) => {
                let last = tp.path.segments.last();
                match last {
                    Some(seg) if seg.ident == "Result" => {
                        let ok_outcome = match &seg.arguments {
                            syn::PathArguments::AngleBracketed(ab) => {
                                ab.args.first().is_some_and(|a| match a {
                                    syn::GenericArgument::Type(t) => {
                                        last_ident(t).as_deref() == Some("Outcome")
                                    }
                                    _ => false,
                                })
                            }
                            _ => false,
                        };
                        (true, ok_outcome)
                    }
                    Some(seg) if seg.ident == "Outcome" => (false, true),
                    _ => (false, false),
                }
            }
            _ => (false, false),
        },
    }
}

/// The conversion of `ret` into the tool's result: an `Outcome` is taken whole, any other value
/// as the result's data; an `Err` is converted into a `ToolError`.
fn convert_return(output: &ReturnType) -> TokenStream2 {
    let (is_result, ok_is_outcome) = return_shape(output);
    let wrap = if ok_is_outcome {
        quote!(::toolwright::__private::Full)
    } else {
        quote!(::toolwright::__private::Data)
    };
    if is_result {
        quote! {
            match ret {
                ::core::result::Result::Ok(v) =>
                    ::toolwright::__private::IntoToolResult::into_tool_result(#wrap(v)),
                ::core::result::Result::Err(e) => ::core::result::Result::Err(
                    ::core::convert::Into::<::toolwright::ToolError>::into(e)),
            }
        }
    } else {
        quote!(::toolwright::__private::IntoToolResult::into_tool_result(#wrap(ret)))
    }
}

/// The `toolwright::Tool` impl of the tool struct, around its `call*` methods and its raw-JSON
/// methods (see `raw_path`).
fn tool_impl(
    attrs: &ToolAttrs,
    inputs: &[Input],
    struct_ident: &Ident,
    call_methods: TokenStream2,
    raw_methods: TokenStream2,
) -> TokenStream2 {
    // What the runtime may leave out of the context: the state and the invoker.
    let uses_context = inputs
        .iter()
        .any(|i| matches!(i, Input::Context { .. } | Input::State(_)));
    let preview_fn = match &attrs.preview {
        Some(p) => quote! {
            fn preview(&self, args: &::toolwright::__private::serde_json::Value)
                -> ::toolwright::__private::serde_json::Value {
                #p(args)
            }
        },
        None => quote!(),
    };
    quote! {
        impl ::toolwright::Tool for #struct_ident {
            fn spec(&self) -> &::toolwright::ToolSpec {
                &Self::__toolwright_spec().0
            }

            #preview_fn

            fn uses_context(&self) -> bool {
                #uses_context
            }

            #call_methods

            #raw_methods
        }
    }
}

/// The `call`, `call_shared`, `call_ref` and `borrows_args` methods of the `Tool` impl: each
/// parses the arguments and hands them to `__toolwright_run`.
fn call_methods(params: &[&Param], single: bool, args_ident: &Ident) -> TokenStream2 {
    let parse_args = parse_args_expr(false, single, params, args_ident);
    let parse_args_shared = parse_args_expr(true, single, params, args_ident);
    let has_validators = params.iter().any(|p| p.attrs.validate.is_some());
    // Validators report the value the model sent, so they keep the raw arguments.
    // (`call_ref` copies them then, so such a tool does not say it borrows its arguments.)
    let (keep_raw, keep_raw_shared) = if has_validators {
        (
            quote!(::core::option::Option::Some(::std::sync::Arc::new(
                args.clone()
            ))),
            quote!(::core::option::Option::Some(::std::sync::Arc::clone(
                &shared
            ))),
        )
    } else {
        (
            quote!(::core::option::Option::None),
            quote!(::core::option::Option::None),
        )
    };
    let borrows_args = !has_validators;
    quote! {
        fn call(
            &self,
            args: ::toolwright::__private::serde_json::Value,
            ctx: ::toolwright::ToolContext,
        ) -> ::toolwright::ToolFuture {
            let flat = Self::__toolwright_spec().1;
            let raw = #keep_raw;
            Self::__toolwright_run(#parse_args, raw, ctx)
        }

        fn call_shared(
            &self,
            args: ::std::sync::Arc<::toolwright::__private::serde_json::Value>,
            ctx: ::toolwright::ToolContext,
        ) -> ::toolwright::ToolFuture {
            // Sole owner: move the strings out instead of copying them.
            match ::std::sync::Arc::try_unwrap(args) {
                ::core::result::Result::Ok(owned) => self.call(owned, ctx),
                ::core::result::Result::Err(shared) => {
                    let flat = Self::__toolwright_spec().1;
                    let raw = #keep_raw_shared;
                    let args: &::toolwright::__private::serde_json::Value = &shared;
                    Self::__toolwright_run(#parse_args_shared, raw, ctx)
                }
            }
        }

        fn call_ref(
            &self,
            args: &::toolwright::__private::serde_json::Value,
            ctx: ::toolwright::ToolContext,
        ) -> ::toolwright::ToolFuture {
            let flat = Self::__toolwright_spec().1;
            let raw = #keep_raw;
            Self::__toolwright_run(#parse_args_shared, raw, ctx)
        }

        fn borrows_args(&self) -> bool {
            #borrows_args
        }
    }
}

/// The expression deserializing the argument struct from `args`, as `call` does
/// (`shared == false`) or as `call_shared`/`call_ref` do (`shared == true`).
fn parse_args_expr(
    shared: bool,
    single: bool,
    params: &[&Param],
    args_ident: &Ident,
) -> TokenStream2 {
    // Deserialization: flattened single struct or the wrapper; from an owned `Value` (`call`)
    // or from a shared one (`call_shared`, no copy of the arguments).
    let de = |ty: TokenStream2| {
        if shared {
            quote!(<#ty as ::toolwright::__private::serde::Deserialize>::deserialize(&*args))
        } else {
            quote!(::toolwright::__private::serde_json::from_value::<#ty>(args))
        }
    };
    if single {
        match params.first().map(|p| (&p.ident, &p.ty)) {
            Some((ident, ty)) => {
                let flat_de = de(quote!(#ty));
                let wrap_de = de(quote!(#args_ident));
                quote! {
                    if flat {
                        #flat_de.map(|v| #args_ident { #ident: v })
                    } else {
                        #wrap_de
                    }
                }
            }
            None => de(quote!(#args_ident)),
        }
    } else {
        let wrap_de = de(quote!(#args_ident));
        quote! {
            {
                let _ = flat;
                #wrap_de
            }
        }
    }
}
