"""Images a user sends: verified by content, prepared for the model, fetched (allowlisted URLs) or described."""
