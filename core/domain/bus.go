package domain

// BusEvent is anything published on the EventBus (ports.EventBus). Each
// event type has a stable name; subscribers register by that name.
type BusEvent interface{ EventName() string }
