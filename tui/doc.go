// Package tui is the Bubble Tea workbench: the root model, its panels, styles and keys.
package tui
