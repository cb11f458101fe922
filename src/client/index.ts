// event-resource-service/client: the server package's export of the client, kept for code that
// imports it from there. The client is its own package, @event-resource-service/client
// (packages/client), which installs without the server's dependencies.
export * from '@event-resource-service/client'
