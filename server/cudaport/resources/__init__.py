"""The bundled data and the cache: where the rule data and its catalogues lie (paths), and the cache folder that
keeps what is compiled from them between runs (cache). Imports nothing of cudaport but its version."""
