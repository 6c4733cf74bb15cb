"""The model client: any OpenAI-compatible server, with retries, deadlines and usage."""
