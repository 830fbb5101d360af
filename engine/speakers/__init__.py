"""Who spoke: the meeting's sides (Me, Others) and the voices among the others."""
