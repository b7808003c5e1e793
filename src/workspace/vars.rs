//! HOST and `${VAR}` resolution: process environment > local.yaml > catalog vars.
