"""The one engine behind every front end: analysing a buffer and finalising its findings (engine), judging that a
fix leaves the same program (consistency, fixplan), an editor's analysis session kept current across edits
(session, spans, store), where a dual-stack fix's files go (dualplan), and `check` over a tree (runner). May
import: project, analyzers, knowledge, model, i18n, resources."""
