"""`athena bench`: retrieval speed and quality at scale, side by side with alternatives."""
