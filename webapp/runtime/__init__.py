"""The vLLM process: preparing the embedded model, starting, watching, restarting and stopping the server."""
