#!/bin/sh
exec yes "kind: x"
