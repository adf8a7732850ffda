"""The rails: URL policy, moderation, the streaming output filter, and the NeMo Guardrails adapter."""
