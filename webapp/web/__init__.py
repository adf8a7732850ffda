"""Everything a browser or a script talks to: FastAPI app, OpenAI API, Gradio UI, auth, metrics, logs."""
