//! `toolwright eval --dataset DIR` on a shared-toolset folder ([`crate::toolset`]): routing
//! figures per scorer (BM25, and dense and hybrid with the local embedder), the out-of-scope
//! floor's refusal rates, and unless `--routing-only` the end-to-end figures of the chosen
//! provider (the embedded model by default) with the product's default settings.

use crate::command::{CommandError, EvalArgs, ModeArg};
use crate::e2e::{EndToEnd, run_end_to_end};
use crate::routing::{NoToolRates, RoutingRow, route_metrics};
use crate::toolset::{Request, ToolsetDataset};
use serde::Serialize;
use std::path::Path;
use std::sync::Arc;
use toolwright_catalog::Router;

/// Everything the command measured.
#[derive(Debug, Clone, Serialize)]
pub struct ToolsetReport {
    /// The dataset's name.
    pub dataset: String,
    /// Tools in the toolset.
    pub tools: usize,
    /// Requests measured (in scope and out of scope).
    pub requests: usize,
    /// Routing per scorer.
    pub routing: Vec<RoutingRow>,
    /// The "no tool fits" rule of the embedded provider on this dataset (hybrid router).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_tool: Option<NoToolReport>,
    /// End to end, when run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_to_end: Option<EndToEnd>,
    /// Why dense scoring is missing, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// How the "no tool fits" rule does on a dataset: the product's default, a rule fitted on all
/// of it, and rules fitted on one half (split by server) measured on the other.
#[derive(Debug, Clone, Serialize)]
pub struct NoToolReport {
    /// The default rule's rates.
    pub default: NoToolRates,
    /// A rule fitted on every request (5% in-scope budget), and its rates there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fitted: Option<NoToolRates>,
    /// Fitted on one half, measured on the other (both ways).
    pub held_out: Vec<NoToolRates>,
    /// The right-tool rate of a provider that calls the router's first candidate unless the
    /// default rule refuses (the local provider's default policy): `[default, fitted]`.
    pub router_first_right: [f64; 2],
    /// Requests that name an allowed value of the first candidate's parameters, which every
    /// rule lets through: `[in scope, out of scope]`.
    pub value_named: [usize; 2],
}

fn select(requests: &[Request], args: &EvalArgs) -> Vec<Request> {
    crate::dataset::select_by(
        requests.to_vec(),
        |r| r.server.as_str(),
        &args.category,
        args.limit,
    )
}

/// Runs the command on the folder `dir`.
///
/// # Errors
/// As [`crate::command::run`].
pub async fn run(args: &EvalArgs, dir: &Path) -> Result<(), CommandError> {
    let usage = CommandError::Usage;
    let ds = ToolsetDataset::load(dir).map_err(|e| usage(e.to_string()))?;
    let requests = select(&ds.requests, args);
    if requests.is_empty() {
        return Err(usage("no request matches --category and --limit".into()));
    }
    eprintln!(
        "toolwright eval: {} request(s) over {} tools ({})",
        requests.len(),
        ds.specs.len(),
        ds.name
    );
    let mut report = ToolsetReport {
        dataset: ds.name.clone(),
        tools: ds.specs.len(),
        requests: requests.len(),
        routing: vec![route_metrics(&Router::new(&ds.specs), &requests)],
        no_tool: None,
        end_to_end: None,
        note: None,
    };
    let hybrid = dense::routers(&ds, &requests, &mut report);
    let ranker_router = hybrid.unwrap_or_else(|| Router::new(&ds.specs));
    if !args.routing_only && args.mode != ModeArg::Naive {
        let provider = crate::command::guided_provider_for_toolsets(args).map_err(usage)?;
        let ranker = Arc::new(toolwright_agent::routing::CatalogRanker::from_router(
            ranker_router,
        ));
        let config = toolwright_agent::AgentConfig {
            mode: toolwright_agent::Mode::Loop,
            max_steps: args.max_steps,
            ..toolwright_agent::AgentConfig::default()
        };
        let bar = crate::run::progress_bar(requests.len() as u64);
        let e2e = run_end_to_end(&ds, &requests, provider, ranker, config, &mut |d, _| {
            bar.set_position(d as u64)
        })
        .await
        .map_err(|e| usage(e.to_string()))?;
        bar.finish_and_clear();
        report.end_to_end = Some(e2e);
    }
    let json = serde_json::to_string_pretty(&report)
        .map_err(|e| CommandError::Failed(format!("cannot serialize the report: {e}")))?;
    if let Some(p) = &args.out {
        std::fs::write(p, &json)
            .map_err(|e| CommandError::Failed(format!("cannot write {}: {e}", p.display())))?;
    }
    if args.json {
        println!("{json}");
    } else {
        print!("{}", summary_text(&report));
    }
    Ok(())
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The report as the text the command prints.
pub fn summary_text(r: &ToolsetReport) -> String {
    let mut s = format!(
        "dataset {}: {} tools, {} requests\n\nrouting (in-scope requests)\n  scorer   recall@1  recall@5  MRR@10\n",
        r.dataset, r.tools, r.requests
    );
    for row in &r.routing {
        s.push_str(&format!(
            "  {:<8} {:>8}  {:>8}  {:>6.3}\n",
            row.scorer,
            pct(row.recall_at_1),
            pct(row.recall_at_5),
            row.mrr
        ));
    }
    if let Some(n) = &r.no_tool {
        let line = |label: &str, f: &NoToolRates| {
            format!(
                "  {label:<30} {:>6} of {} out-of-scope   {:>6} of {} in-scope   [{}]\n",
                pct(f.refused_out_of_scope),
                f.out_of_scope,
                pct(f.refused_in_scope),
                f.in_scope,
                f.rule
                    .iter()
                    .map(|w| format!("{w:.3}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        s.push_str("\nno tool fits (requests refused; rule [bias, similarity, lexical, words, action missing, object missing])\n");
        s.push_str(&line("default rule", &n.default));
        if let Some(f) = &n.fitted {
            s.push_str(&line("fitted here", f));
        }
        for (i, h) in n.held_out.iter().enumerate() {
            s.push_str(&line(&format!("fitted on half {}, other half", i + 1), h));
        }
        s.push_str(&format!(
            "  right tool when the router's first candidate is called unless the rule refuses: default rule {}, fitted {}\n",
            pct(n.router_first_right[0]),
            pct(n.router_first_right[1])
        ));
        s.push_str(&format!(
            "  never refused: requests naming an allowed value of the first candidate's parameters, {} in scope and {} out of scope\n",
            n.value_named[0], n.value_named[1]
        ));
    }
    if let Some(n) = &r.note {
        s.push_str(&format!("\n{n}\n"));
    }
    if let Some(e) = &r.end_to_end {
        s.push_str(&format!(
            "\nend to end ({})\n  right tool        {} of {} in-scope\n  arguments right   {} of {} with a right tool and determined arguments\n  in-scope refused  {} (asked for an input the request does not give: {})\n  out-of-scope answered without a call  {} of {} (asked for an input: {})\n  mean time per request  {:.0} ms\n",
            e.provider,
            pct(e.right_tool),
            e.in_scope,
            pct(e.arguments_right),
            e.with_arguments,
            pct(e.refused_in_scope),
            pct(e.asked_in_scope),
            pct(e.refused_out_of_scope),
            e.out_of_scope,
            pct(e.asked_out_of_scope),
            e.mean_ms
        ));
    }
    s
}

/// The "no tool fits" evidence of every request of `ds`, as the embedded provider reads it
/// (hybrid router, its 3 candidates), with the request's server and whether the router's first
/// candidate is right: what [`crate::routing::fit_no_tool`] fits a rule on. Needs the embedder.
#[cfg(feature = "embed")]
pub fn no_tool_points(
    ds: &ToolsetDataset,
) -> Result<Vec<(crate::routing::NoToolPoint, String, bool)>, String> {
    let setup = toolwright_local::routing::build_router(
        ds.specs.clone(),
        Some(toolwright_catalog::ScorerKind::Hybrid),
        &mut |_, _| {},
    )
    .map_err(|e| e.to_string())?;
    let ranker = toolwright_agent::routing::CatalogRanker::from_router(setup.router);
    Ok(dense::points(&ranker, &ds.requests)
        .into_iter()
        .map(|(p, s, r)| (p, s.to_string(), r))
        .collect())
}

/// The no-tool rule's features of `e`, in the order of
/// `toolwright_local::select::DEFAULT_NO_TOOL_RULE` after its bias: similarity, lexical, content
/// words (from the rule's floor up), action missing, object missing.
#[cfg(feature = "embed")]
pub fn rule_features(
    e: &toolwright_local::select::Evidence,
) -> [f32; crate::routing::NO_TOOL_FEATURES] {
    [
        e.similarity,
        e.lexical,
        e.words.max(toolwright_local::select::DEFAULT_WORDS_FLOOR) as f32,
        f32::from(u8::from(e.action_missing)),
        f32::from(u8::from(e.object_missing)),
    ]
}

#[cfg(feature = "embed")]
mod dense {
    use super::*;
    use crate::routing::{fit_no_tool, no_tool_rates, router_first_right, split_by_server};
    use toolwright_agent::Ranker;
    use toolwright_agent::routing::CatalogRanker;
    use toolwright_catalog::ScorerKind;
    use toolwright_local::select::{DEFAULT_NO_TOOL_RULE, NoToolRule, evidence_with};

    /// The rule's features for every request, as the provider sees them (its default 3
    /// candidates), with each request's server.
    /// ... and whether the router's first candidate is right.
    pub(super) fn points<'r>(
        ranker: &CatalogRanker,
        requests: &'r [Request],
    ) -> Vec<(crate::routing::NoToolPoint, &'r str, bool)> {
        let specs = ranker.router().specs();
        // Objects read by meaning, as the provider reads them (the default rule's floor).
        let embedder = toolwright_local::routing::shared_embedder().ok();
        let synonyms = NoToolRule::default()
            .object_synonym
            .and_then(|floor| embedder.as_deref().map(|e| (e, floor)));
        requests
            .iter()
            .filter_map(|r| {
                let ranked = ranker.rank(&r.query, 3);
                let e = evidence_with(&ranked, &r.query, specs, synonyms)?;
                let first_right = ranked
                    .first()
                    .is_some_and(|c| r.right_tools().contains(&c.name.as_str()));
                Some((
                    crate::routing::NoToolPoint {
                        out_of_scope: r.out_of_scope(),
                        x: super::rule_features(&e),
                        value_named: e.value_named,
                    },
                    r.server.as_str(),
                    first_right,
                ))
            })
            .collect()
    }

    fn no_tool_report(ranker: &CatalogRanker, requests: &[Request]) -> NoToolReport {
        let pts = points(ranker, requests);
        let all: Vec<_> = pts.iter().map(|(p, _, _)| *p).collect();
        let first_right: Vec<bool> = pts.iter().map(|(_, _, r)| *r).collect();
        let by_server: Vec<_> = pts.iter().map(|(p, s, _)| (*p, *s)).collect();
        let (a, b) = split_by_server(&by_server);
        let held_out = [(&a, &b), (&b, &a)]
            .iter()
            .filter_map(|(fit, test)| fit_no_tool(fit, 0.05).map(|r| no_tool_rates(test, r)))
            .collect();
        let fitted = fit_no_tool(&all, 0.05);
        NoToolReport {
            default: no_tool_rates(&all, DEFAULT_NO_TOOL_RULE),
            fitted: fitted.map(|r| no_tool_rates(&all, r)),
            held_out,
            router_first_right: [
                router_first_right(&all, &first_right, DEFAULT_NO_TOOL_RULE),
                fitted.map_or(0.0, |r| router_first_right(&all, &first_right, r)),
            ],
            value_named: [false, true].map(|oos| {
                all.iter()
                    .filter(|p| p.value_named && p.out_of_scope == oos)
                    .count()
            }),
        }
    }

    /// Adds the dense and hybrid rows and the floor's rates; returns the hybrid router.
    pub(super) fn routers(
        ds: &ToolsetDataset,
        requests: &[Request],
        report: &mut ToolsetReport,
    ) -> Option<Router> {
        let setup = match toolwright_local::routing::build_router(
            ds.specs.clone(),
            Some(ScorerKind::Hybrid),
            &mut |_, _| {},
        ) {
            Ok(s) => s,
            Err(e) => {
                report.note = Some(format!("dense and hybrid routing skipped: {e}"));
                return None;
            }
        };
        let mut router = setup.router;
        router.set_kind(ScorerKind::Dense);
        report.routing.push(route_metrics(&router, requests));
        router.set_kind(ScorerKind::Hybrid);
        report.routing.push(route_metrics(&router, requests));
        let ranker = CatalogRanker::from_router(router);
        report.no_tool = Some(no_tool_report(&ranker, requests));
        Some(ranker.into_router())
    }
}

#[cfg(not(feature = "embed"))]
mod dense {
    use super::*;

    pub(super) fn routers(
        _ds: &ToolsetDataset,
        _requests: &[Request],
        report: &mut ToolsetReport,
    ) -> Option<Router> {
        report.note = Some(
            "dense and hybrid routing skipped: this build has no embedder (feature `embed`)"
                .to_string(),
        );
        None
    }
}
