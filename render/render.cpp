// Placeholder translation unit so the render library exists before its drawing code does.
