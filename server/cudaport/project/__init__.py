"""What the project is: its configuration (config), which files are its own (files, ignorefiles: excludes, build
trees, .gitignore), and the headers its files include (includes: the include graph and portability headers), both
walking the tree one way (walking). May import: analyzers, knowledge, model, i18n, resources."""
