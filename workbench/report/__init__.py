"""Reports of an iteration: streaming text, one JSON document, JUnit XML."""
