/* fake_sysfs.h — fake Linux sysfs trees for the calibration tests: a temporary folder
 * with cpu0/cache/indexN and cpu0/topology files written as the kernel writes them. */
#ifndef PPT_TEST_FAKE_SYSFS_H
#define PPT_TEST_FAKE_SYSFS_H

/* A fresh folder under /tmp (malloc'd name). */
char *fake_root(void);
/* Writes `text` and a newline to root/rel, making the folders on the way. */
void fake_put(const char *root, const char *rel, const char *text);
/* cpu0/cache/index<idx>/{level,type,size,ways_of_associativity,coherency_line_size
 * (64),shared_cpu_list}. */
void fake_put_cache(const char *root, int idx, const char *level, const char *type, const char *size,
                    const char *ways, const char *list);
/* Removes the tree (files and folders). */
void fake_rm_rf(const char *root);

#endif
