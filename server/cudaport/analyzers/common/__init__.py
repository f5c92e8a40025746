"""What every analyzer shares: the Analyzer protocol and a file's context (base), tree-sitter helpers (syntax),
the word counts an editor session keeps (presence), where suppression comments go and which apply (comments,
suppress, clex), and the names a rewrite touches (names). May import: knowledge, model, i18n."""
