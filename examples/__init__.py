"""Examples of user code the scenarios can name (e.g. a custom provider's factory)."""
