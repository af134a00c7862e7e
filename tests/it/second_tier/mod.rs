mod example_patches;
