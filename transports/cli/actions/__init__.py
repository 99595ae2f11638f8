"""What a command does once its flags are parsed: build the tool input, call the gate, print, give an exit code."""
