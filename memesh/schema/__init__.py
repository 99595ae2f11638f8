"""The schema files (`files`) and the validator that checks a request against them (`validation`)."""
