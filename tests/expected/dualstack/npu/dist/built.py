placeholder = "a built artefact"
