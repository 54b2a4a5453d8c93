"""What a client of Paiju uses: bots that play from a seat's view, and text for events."""
