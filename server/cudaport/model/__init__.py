"""The values every layer passes around: findings and their difficulties, severities, edits and fixes (findings),
a run's results per file and target (results), a source file's text in its encoding (source), the words that name
difficulties (words), the folders above files listed once per run (folders), and the classes of named fields every
package uses (records). May import: i18n, resources."""
