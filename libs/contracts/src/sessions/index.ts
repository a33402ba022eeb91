// Sessions contracts (commands on sessions.commands, events on sessions.events).
export {};
