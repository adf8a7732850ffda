"""The one-turn pipeline (ChatService), its request and event types, and prompt and context building."""
