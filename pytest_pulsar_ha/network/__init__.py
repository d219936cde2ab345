"""The proxied network: toxiproxy, which proxy carries which traffic, and faults on links."""
