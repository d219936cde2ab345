"""What a run shows people: the timeline picture and the index page of the evidence."""
