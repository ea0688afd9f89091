"""An example lamina plugin: the `example` dialect, the `example-strip-traces`
pass and the `example` BYOC target, all found through entry points."""
