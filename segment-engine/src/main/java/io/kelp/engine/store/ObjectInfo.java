package io.kelp.engine.store;

/**
 * An entry in the store.
 *
 * @param name the last path element
 * @param directory whether it is a directory
 * @param size the object's size in bytes (0 for directories)
 */
public record ObjectInfo(String name, boolean directory, long size) {}
