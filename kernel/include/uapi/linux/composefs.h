/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * composefs on-disk format, version 1.
 *
 * On-disk structures are named cfs_disk_*.
 * This is the single definition of the format: the kernel filesystem and the
 * userspace tools (writer, reader, dump) both compile it.  All fields are
 * little-endian and the structures are packed.
 *
 * Layout of an image file:
 *   0              struct cfs_disk_superblock (128 bytes)
 *   128            inode table: N x struct cfs_disk_inode (96 bytes each)
 *   vdata_offset   variable data: dirent chunks, backing paths, symlink
 *                  targets and xattr chunks, referenced by struct cfs_disk_vdata
 *                  relative to vdata_offset.
 */
#ifndef _UAPI_LINUX_COMPOSEFS_H
#define _UAPI_LINUX_COMPOSEFS_H

#include <linux/types.h>

#define CFS_VERSION 1
#define CFS_MAGIC 0xc078629aU

#define CFS_SUPERBLOCK_SIZE 128
#define CFS_INODE_SIZE 96
#define CFS_DIRENT_SIZE 12
#define CFS_XATTR_ELEM_SIZE 4
#define CFS_DIGEST_SIZE 32	/* fs-verity SHA-256 */
#define CFS_VDATA_ALIGN 4	/* dirent and xattr chunks start aligned */
#define CFS_ROOT_INO 0

#define CFS_MAX_NAME 255
#define CFS_MAX_PATH 4095	/* backing paths and symlink targets */
#define CFS_MAX_XATTR_KEY 255
#define CFS_MAX_XATTR_VALUE 65535
#define CFS_MAX_XATTRS 65535
#define CFS_MAX_NSEC 999999999	/* st_mtim_nsec and st_ctim_nsec */

/* Reference into the variable data section; len == 0 means absent. */
struct cfs_disk_vdata {
	__le64 off;
	__le32 len;
} __attribute__((__packed__));

struct cfs_disk_superblock {
	__le32 version;
	__le32 magic;
	__le64 vdata_offset;
	__le32 unused[28];	/* must be zero */
} __attribute__((__packed__));

struct cfs_disk_inode {
	__le32 st_mode;
	__le32 st_nlink;
	__le32 st_uid;
	__le32 st_gid;
	__le32 st_rdev;
	__le64 st_size;
	__le64 st_mtim_sec;
	__le32 st_mtim_nsec;
	__le64 st_ctim_sec;
	__le32 st_ctim_nsec;
	struct cfs_disk_vdata variable_data;	/* dirents, backing path or target */
	struct cfs_disk_vdata xattrs;
	struct cfs_disk_vdata digest;	/* regular files: 32-byte verity digest */
	__le32 unused[2];	/* must be zero */
} __attribute__((__packed__));

struct cfs_disk_dirent {
	__le32 inode_num;
	__le32 name_offset;	/* from the end of the dirent array */
	__u8 name_len;
	__u8 d_type;
	__le16 _padding;	/* must be zero */
} __attribute__((__packed__));

/* A directory chunk: __le32 n_dirents, the dirents, then the names. */
struct cfs_disk_dir_header {
	__le32 n_dirents;
	struct cfs_disk_dirent dirents[];
} __attribute__((__packed__));

struct cfs_disk_xattr_element {
	__le16 key_length;
	__le16 value_length;
} __attribute__((__packed__));

/* An xattr chunk: __le16 n_attr, the elements, then key and value bytes. */
struct cfs_disk_xattr_header {
	__le16 n_attr;
	struct cfs_disk_xattr_element attr[];
} __attribute__((__packed__));

#endif /* _UAPI_LINUX_COMPOSEFS_H */
