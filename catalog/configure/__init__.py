"""Configure to order: a chassis's rules, the components a system is built from, and the
check of a configuration (docs/configure.md). `rules` is pure (no Django); `service` reads
the catalog; `wording` words the findings in English and Dutch."""
