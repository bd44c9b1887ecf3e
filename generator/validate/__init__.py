"""Stage 2, validate: the loaded documents become the knowledge base (`validate.build_knowledge_base`)
and are checked for shape (`schema`, JSON Schema) and meaning (`validate.MeaningChecks` and the
named checks of `validate_*`: languages, text against its sources, terminology, markup, the rules-check
catalogues and the calculators' words), every problem collected with its code and place. `coverage`
reports which source lines the entries carry."""
