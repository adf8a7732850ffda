"""The model server: the OpenAI-compatible client and the model profiles (models as data)."""
