// Sessions contracts (commands on sessions.commands, events on sessions.events).
export * from './session';
export * from './session.rules';
export * from './sessions.commands';
export * from './sessions.events';
